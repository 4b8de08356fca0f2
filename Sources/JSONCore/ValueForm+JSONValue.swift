import GraphCore

extension ValueForm {
    /// The value of an attribute of `type` from a JSON value of a tree (a message of the
    /// protocol), read as ``value(number:as:)`` and ``value(string:as:)`` read the store
    /// file; nil when `json` is not a value of that type. `null` is `Value.null` (GraphCore).
    public static func value(_ json: JSONValue, as type: AttributeType) -> Value? {
        switch json {
        case .null: return .null
        case .bool(let flag): return type == .bool ? .bool(flag) : nil
        case .number(var text): return text.withUTF8 { value(number: UnsafeRawBufferPointer($0), as: type) }
        case .string(var text): return text.withUTF8 { value(string: UnsafeRawBufferPointer($0), as: type) }
        case .array, .object: return nil
        }
    }
}
