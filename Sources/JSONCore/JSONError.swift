/// An error of the JSON layer: a text that is not JSON, or JSON of a shape its reader refuses.
///
/// Both cases say where: the byte offset of the input (from 0), and the line and column
/// (from 1; `column` counts bytes). They name no file or message: whoever reads the input
/// adds that (the store says which file, the server answers a parse error).
public enum JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not valid JSON (or has a NUL byte, a comment, invalid UTF-8, a second value).
    case invalidJSON(offset: Int, line: Int, column: Int, reason: String)
    /// The text is JSON, but a ``JSONEventHandler`` refused its shape with a ``JSONShapeError``
    /// (arrays nested too deep, an array where an object belongs), at the event it refused.
    case unexpectedShape(offset: Int, line: Int, column: Int, reason: String)

    /// The byte offset of the place the error names.
    public var offset: Int {
        switch self {
        case .invalidJSON(let offset, _, _, _), .unexpectedShape(let offset, _, _, _): return offset
        }
    }

    /// What was wrong, without the place.
    public var reason: String {
        switch self {
        case .invalidJSON(_, _, _, let reason), .unexpectedShape(_, _, _, let reason): return reason
        }
    }

    /// The place as the messages write it: `byte 12, line 1, column 13`.
    public var place: String {
        switch self {
        case .invalidJSON(let offset, let line, let column, _), .unexpectedShape(let offset, let line, let column, _):
            return "byte \(offset), line \(line), column \(column)"
        }
    }

    /// `invalid JSON at byte 3 (line 1, column 4): <reason>`, or `<reason> (at byte 3, line 1, column 4)`.
    public var description: String {
        switch self {
        case .invalidJSON(let offset, let line, let column, let reason):
            return "invalid JSON at byte \(offset) (line \(line), column \(column)): \(reason)"
        case .unexpectedShape(_, _, _, let reason):
            return "\(reason) (at \(place))"
        }
    }
}
