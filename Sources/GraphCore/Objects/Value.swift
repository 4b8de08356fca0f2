import Foundation

/// A value of an attribute or a relationship.
///
/// Integers of every width are `.int`, `double` and `float` attributes are `.double`
/// (a `float` attribute keeps only `Float` precision), a to-one relationship holds
/// `.object` or `.null`, and a to-many relationship holds `.objects` (in order for ordered
/// relationships). Literals make values directly: `"Blue"`, `42`, `3.5`, `true`, `nil`.
public enum Value: Sendable, Hashable {
    /// No value: a nil attribute or an empty to-one relationship.
    case null
    /// An integer, for `int16`, `int32` and `int64` attributes.
    case int(Int64)
    /// A binary floating-point number, for `double` and `float` attributes.
    case double(Double)
    /// A base-10 number, for `decimal` attributes.
    indirect case decimal(Decimal)  // boxed: keeps every value at 17 bytes
    /// Text, for `string` attributes.
    case string(String)
    /// A Boolean, for `bool` attributes.
    case bool(Bool)
    /// A point in time, for `date` attributes.
    case date(Date)
    /// Bytes, for `binary` attributes.
    case binary(Data)
    /// A UUID, for `uuid` attributes.
    case uuid(UUID)
    /// A URL, for `uri` attributes.
    case uri(URL)
    /// The object a to-one relationship holds.
    case object(ObjectID)
    /// The objects a to-many relationship holds (in order for an ordered one).
    case objects([ObjectID])

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the kind of value, for error messages.
    public var kindName: String {
        switch self {
        case .null: return "nil"
        case .int: return "integer"
        case .double: return "double"
        case .decimal: return "decimal"
        case .string: return "string"
        case .bool: return "bool"
        case .date: return "date"
        case .binary: return "binary"
        case .uuid: return "uuid"
        case .uri: return "uri"
        case .object: return "object"
        case .objects: return "objects"
        }
    }

    /// This value as one an attribute of `type` stores, or nil when it cannot be one.
    ///
    /// Conversions that lose nothing are made: an integer into a `double`, `float` or
    /// `decimal` attribute, a double into a `float` one (rounded to `Float`). An integer
    /// outside an `int16` or `int32` attribute's range is refused, and so is a finite double
    /// too large for a `float` attribute (it would become infinity).
    public func converted(to type: AttributeType) -> Value? {
        switch (type, self) {
        case (_, .null): return .null
        case (.int16, .int(let i)), (.int32, .int(let i)), (.int64, .int(let i)):
            guard let range = type.integerRange, range.contains(i) else { return nil }
            return self
        case (.double, .double): return self
        case (.double, .int(let i)): return .double(Double(i))
        case (.float, .double(let d)):
            let rounded = Float(d)
            guard rounded.isFinite || !d.isFinite else { return nil }
            return .double(Double(rounded))
        case (.float, .int(let i)): return .double(Double(Float(i)))
        case (.decimal, .decimal): return self
        case (.decimal, .int(let i)): return .decimal(Decimal(i))
        case (.string, .string), (.bool, .bool), (.date, .date), (.binary, .binary),
            (.uuid, .uuid), (.uri, .uri):
            return self
        default: return nil
        }
    }
}

extension Value {
    /// Whether this non-nil value is exactly what an attribute of `type` stores (no conversion needed).
    func isStored(as type: AttributeType) -> Bool {
        switch (type, self) {
        case (.int16, .int(let i)): return Int64(Int16.min)...Int64(Int16.max) ~= i
        case (.int32, .int(let i)): return Int64(Int32.min)...Int64(Int32.max) ~= i
        case (.int64, .int), (.double, .double), (.decimal, .decimal), (.string, .string), (.bool, .bool),
            (.date, .date), (.binary, .binary), (.uuid, .uuid), (.uri, .uri):
            return true
        case (.float, .double(let d)): return d.isNaN || Double(Float(d)) == d
        default: return false
        }
    }
}

extension Value: CustomStringConvertible {
    /// The value as text for messages: `nil`, numbers, quoted strings, ISO 8601 dates,
    /// `<n bytes>`, object ID URIs.
    public var description: String {
        switch self {
        case .null: return "nil"
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .decimal(let d): return d.description
        case .string(let s): return String(reflecting: s)
        case .bool(let b): return b ? "true" : "false"
        case .date(let d): return d.formatted(.iso8601)
        case .binary(let data): return "<\(data.count) bytes>"
        case .uuid(let u): return u.uuidString
        case .uri(let u): return u.absoluteString
        case .object(let id): return id.uriRepresentation
        case .objects(let ids): return "[" + ids.map(\.uriRepresentation).joined(separator: ", ") + "]"
        }
    }
}

extension Value: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    /// `"text"` is ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `42` is ``int(_:)``.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// `3.5` is ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `true` is ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `nil` is ``null``.
    public init(nilLiteral: ()) { self = .null }
}
