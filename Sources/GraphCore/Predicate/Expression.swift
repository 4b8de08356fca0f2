import Foundation

/// One side of a comparison: a key path into the object, a constant, or the object itself.
public indirect enum Expression: Sendable, Hashable, CustomStringConvertible {
    /// A dotted key path, e.g. `title` or `album.artist.name`.
    case keyPath(String)
    /// A constant value.
    case constant(Value)
    /// The evaluated object itself (`SELF`).
    case evaluatedObject

    /// A key path expression: `.key("album.title")`.
    public static func key(_ path: String) -> Expression { .keyPath(path) }

    public var description: String {
        switch self {
        case .keyPath(let path): return path
        case .constant(let value): return value.description
        case .evaluatedObject: return "SELF"
        }
    }
}

extension Expression: ExpressibleByStringLiteral {
    /// A string literal is a key path: `"album.title" == .constant("Blue")`.
    public init(stringLiteral value: String) { self = .keyPath(value) }
}
