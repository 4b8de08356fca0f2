/// Compact JSON text made with a generator.
///
/// ```swift
/// let bytes = try JSONText.make { out in
///     try out.openObject(); try out.string("ok"); try out.bool(true); try out.closeObject()
/// }
/// ```
public enum JSONText {
    /// The bytes `body` writes with a new generator: one JSON value, compact.
    ///
    /// - Throws: what `body` throws, or ``JSONGenerator/GenerationError`` for wrong nesting.
    public static func make(_ body: (JSONGenerator) throws -> Void) throws -> [UInt8] {
        let out = try JSONGenerator()
        try body(out)
        var bytes: [UInt8] = []
        try out.flush { bytes = Array($0) }
        return bytes
    }
}
