import Foundation

/// A Swift type that an attribute value converts to and from: `String`, the integer and
/// floating-point types, `Decimal`, `Bool`, `Date`, `Data`, `UUID`, `URL`, and `Optional`
/// of any of them.
public protocol AttributeValueConvertible {
    /// The Swift value for an attribute value, or nil when the value is of another kind
    /// (or nil for a non-optional type, or out of range for a narrow integer type).
    init?(attributeValue: Value)
    /// The attribute value for this Swift value.
    var attributeValue: Value { get }
    /// The attribute types whose values this Swift type can hold.
    static var attributeTypes: Set<AttributeType> { get }
    /// What a typed property of this type reads while the attribute is nil.
    static var placeholder: Self { get }
}

extension String: AttributeValueConvertible {
    /// Reads a ``Value/string(_:)``; nil for any other value.
    public init?(attributeValue: Value) {
        guard case .string(let s) = attributeValue else { return nil }
        self = s
    }
    /// The string as ``Value/string(_:)``.
    public var attributeValue: Value { .string(self) }
    /// Holds values of `string` attributes.
    public static var attributeTypes: Set<AttributeType> { [.string] }
    /// What a typed property reads while the attribute is nil: the empty string.
    public static var placeholder: String { "" }
}

extension Bool: AttributeValueConvertible {
    /// Reads a ``Value/bool(_:)``; nil for any other value.
    public init?(attributeValue: Value) {
        guard case .bool(let b) = attributeValue else { return nil }
        self = b
    }
    /// The Boolean as ``Value/bool(_:)``.
    public var attributeValue: Value { .bool(self) }
    /// Holds values of `bool` attributes.
    public static var attributeTypes: Set<AttributeType> { [.bool] }
    /// What a typed property reads while the attribute is nil: `false`.
    public static var placeholder: Bool { false }
}

/// Integer types read any integer attribute that fits them.
public protocol IntegerAttributeValue: AttributeValueConvertible, FixedWidthInteger {}

extension IntegerAttributeValue {
    /// Reads a ``Value/int(_:)`` that fits this type; nil for any other value or one out of range.
    public init?(attributeValue: Value) {
        guard case .int(let i) = attributeValue, let value = Self(exactly: i) else { return nil }
        self = value
    }
    /// The integer as ``Value/int(_:)``.
    public var attributeValue: Value { .int(Int64(self)) }
    /// What a typed property reads while the attribute is nil: zero.
    public static var placeholder: Self { 0 }
}

extension Int: IntegerAttributeValue {
    /// Holds values of every integer attribute type: `int16`, `int32` and `int64`.
    public static var attributeTypes: Set<AttributeType> { [.int16, .int32, .int64] }
}
extension Int64: IntegerAttributeValue {
    /// Holds values of every integer attribute type: `int16`, `int32` and `int64`.
    public static var attributeTypes: Set<AttributeType> { [.int16, .int32, .int64] }
}
extension Int32: IntegerAttributeValue {
    /// Holds values of `int16` and `int32` attributes (an `int64` may not fit).
    public static var attributeTypes: Set<AttributeType> { [.int16, .int32] }
}
extension Int16: IntegerAttributeValue {
    /// Holds values of `int16` attributes only.
    public static var attributeTypes: Set<AttributeType> { [.int16] }
}

extension Double: AttributeValueConvertible {
    /// Reads a ``Value/double(_:)``, or a ``Value/int(_:)`` converted; nil for any other value.
    public init?(attributeValue: Value) {
        switch attributeValue {
        case .double(let d): self = d
        case .int(let i): self = Double(i)
        default: return nil
        }
    }
    /// The number as ``Value/double(_:)``.
    public var attributeValue: Value { .double(self) }
    /// Holds values of `double` and `float` attributes.
    public static var attributeTypes: Set<AttributeType> { [.double, .float] }
    /// What a typed property reads while the attribute is nil: zero.
    public static var placeholder: Double { 0 }
}

extension Float: AttributeValueConvertible {
    /// Reads a ``Value/double(_:)`` or ``Value/int(_:)``, rounded to `Float` precision; nil for any other value.
    public init?(attributeValue: Value) {
        guard let d = Double(attributeValue: attributeValue) else { return nil }
        self = Float(d)
    }
    /// The number as ``Value/double(_:)``.
    public var attributeValue: Value { .double(Double(self)) }
    /// Holds values of `float` attributes (a `double` would lose precision).
    public static var attributeTypes: Set<AttributeType> { [.float] }
    /// What a typed property reads while the attribute is nil: zero.
    public static var placeholder: Float { 0 }
}

extension Decimal: AttributeValueConvertible {
    /// Reads a ``Value/decimal(_:)``, or a ``Value/int(_:)`` converted; nil for any other value.
    public init?(attributeValue: Value) {
        switch attributeValue {
        case .decimal(let d): self = d
        case .int(let i): self = Decimal(i)
        default: return nil
        }
    }
    /// The number as ``Value/decimal(_:)``.
    public var attributeValue: Value { .decimal(self) }
    /// Holds values of `decimal` attributes.
    public static var attributeTypes: Set<AttributeType> { [.decimal] }
    /// What a typed property reads while the attribute is nil: zero.
    public static var placeholder: Decimal { 0 }
}

extension Date: AttributeValueConvertible {
    /// Reads a ``Value/date(_:)``; nil for any other value.
    public init?(attributeValue: Value) {
        guard case .date(let d) = attributeValue else { return nil }
        self = d
    }
    /// The date as ``Value/date(_:)``.
    public var attributeValue: Value { .date(self) }
    /// Holds values of `date` attributes.
    public static var attributeTypes: Set<AttributeType> { [.date] }
    /// What a typed property reads while the attribute is nil: 1970-01-01 00:00:00 UTC.
    public static var placeholder: Date { Date(timeIntervalSince1970: 0) }
}

extension Data: AttributeValueConvertible {
    /// Reads a ``Value/binary(_:)``; nil for any other value.
    public init?(attributeValue: Value) {
        guard case .binary(let d) = attributeValue else { return nil }
        self = d
    }
    /// The bytes as ``Value/binary(_:)``.
    public var attributeValue: Value { .binary(self) }
    /// Holds values of `binary` attributes.
    public static var attributeTypes: Set<AttributeType> { [.binary] }
    /// What a typed property reads while the attribute is nil: empty data.
    public static var placeholder: Data { Data() }
}

extension UUID: AttributeValueConvertible {
    /// Reads a ``Value/uuid(_:)``; nil for any other value.
    public init?(attributeValue: Value) {
        guard case .uuid(let u) = attributeValue else { return nil }
        self = u
    }
    /// The UUID as ``Value/uuid(_:)``.
    public var attributeValue: Value { .uuid(self) }
    /// Holds values of `uuid` attributes.
    public static var attributeTypes: Set<AttributeType> { [.uuid] }
    /// What a typed property reads while the attribute is nil: the all-zero UUID.
    public static var placeholder: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}

extension URL: AttributeValueConvertible {
    /// Reads a ``Value/uri(_:)``; nil for any other value.
    public init?(attributeValue: Value) {
        guard case .uri(let u) = attributeValue else { return nil }
        self = u
    }
    /// The URL as ``Value/uri(_:)``.
    public var attributeValue: Value { .uri(self) }
    /// Holds values of `uri` attributes.
    public static var attributeTypes: Set<AttributeType> { [.uri] }
    /// What a typed property reads while the attribute is nil: the root file URL, `file:///`.
    public static var placeholder: URL { URL(fileURLWithPath: "/") }
}

extension Optional: AttributeValueConvertible where Wrapped: AttributeValueConvertible {
    /// ``Value/null`` reads as nil; any other value as `Wrapped` reads it, or fails when it cannot.
    public init?(attributeValue: Value) {
        if attributeValue.isNull {
            self = .none
        } else if let wrapped = Wrapped(attributeValue: attributeValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
    /// The wrapped value's attribute value, or ``Value/null`` for nil.
    public var attributeValue: Value { self?.attributeValue ?? .null }
    /// The attribute types `Wrapped` holds; the attribute is then optional.
    public static var attributeTypes: Set<AttributeType> { Wrapped.attributeTypes }
    /// What a typed property reads while the attribute is nil: nil.
    public static var placeholder: Wrapped? { nil }
}
