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
    public init?(attributeValue: Value) {
        guard case .string(let s) = attributeValue else { return nil }
        self = s
    }
    public var attributeValue: Value { .string(self) }
    public static var attributeTypes: Set<AttributeType> { [.string] }
    public static var placeholder: String { "" }
}

extension Bool: AttributeValueConvertible {
    public init?(attributeValue: Value) {
        guard case .bool(let b) = attributeValue else { return nil }
        self = b
    }
    public var attributeValue: Value { .bool(self) }
    public static var attributeTypes: Set<AttributeType> { [.bool] }
    public static var placeholder: Bool { false }
}

/// Integer types read any integer attribute that fits them.
public protocol IntegerAttributeValue: AttributeValueConvertible, FixedWidthInteger {}

extension IntegerAttributeValue {
    public init?(attributeValue: Value) {
        guard case .int(let i) = attributeValue, let value = Self(exactly: i) else { return nil }
        self = value
    }
    public var attributeValue: Value { .int(Int64(self)) }
    public static var placeholder: Self { 0 }
}

extension Int: IntegerAttributeValue {
    public static var attributeTypes: Set<AttributeType> { [.int16, .int32, .int64] }
}
extension Int64: IntegerAttributeValue {
    public static var attributeTypes: Set<AttributeType> { [.int16, .int32, .int64] }
}
extension Int32: IntegerAttributeValue {
    public static var attributeTypes: Set<AttributeType> { [.int16, .int32] }
}
extension Int16: IntegerAttributeValue {
    public static var attributeTypes: Set<AttributeType> { [.int16] }
}

extension Double: AttributeValueConvertible {
    public init?(attributeValue: Value) {
        switch attributeValue {
        case .double(let d): self = d
        case .int(let i): self = Double(i)
        default: return nil
        }
    }
    public var attributeValue: Value { .double(self) }
    public static var attributeTypes: Set<AttributeType> { [.double, .float] }
    public static var placeholder: Double { 0 }
}

extension Float: AttributeValueConvertible {
    public init?(attributeValue: Value) {
        guard let d = Double(attributeValue: attributeValue) else { return nil }
        self = Float(d)
    }
    public var attributeValue: Value { .double(Double(self)) }
    public static var attributeTypes: Set<AttributeType> { [.float] }
    public static var placeholder: Float { 0 }
}

extension Decimal: AttributeValueConvertible {
    public init?(attributeValue: Value) {
        switch attributeValue {
        case .decimal(let d): self = d
        case .int(let i): self = Decimal(i)
        default: return nil
        }
    }
    public var attributeValue: Value { .decimal(self) }
    public static var attributeTypes: Set<AttributeType> { [.decimal] }
    public static var placeholder: Decimal { 0 }
}

extension Date: AttributeValueConvertible {
    public init?(attributeValue: Value) {
        guard case .date(let d) = attributeValue else { return nil }
        self = d
    }
    public var attributeValue: Value { .date(self) }
    public static var attributeTypes: Set<AttributeType> { [.date] }
    public static var placeholder: Date { Date(timeIntervalSince1970: 0) }
}

extension Data: AttributeValueConvertible {
    public init?(attributeValue: Value) {
        guard case .binary(let d) = attributeValue else { return nil }
        self = d
    }
    public var attributeValue: Value { .binary(self) }
    public static var attributeTypes: Set<AttributeType> { [.binary] }
    public static var placeholder: Data { Data() }
}

extension UUID: AttributeValueConvertible {
    public init?(attributeValue: Value) {
        guard case .uuid(let u) = attributeValue else { return nil }
        self = u
    }
    public var attributeValue: Value { .uuid(self) }
    public static var attributeTypes: Set<AttributeType> { [.uuid] }
    public static var placeholder: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}

extension URL: AttributeValueConvertible {
    public init?(attributeValue: Value) {
        guard case .uri(let u) = attributeValue else { return nil }
        self = u
    }
    public var attributeValue: Value { .uri(self) }
    public static var attributeTypes: Set<AttributeType> { [.uri] }
    public static var placeholder: URL { URL(fileURLWithPath: "/") }
}

extension Optional: AttributeValueConvertible where Wrapped: AttributeValueConvertible {
    public init?(attributeValue: Value) {
        if attributeValue.isNull {
            self = .none
        } else if let wrapped = Wrapped(attributeValue: attributeValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
    public var attributeValue: Value { self?.attributeValue ?? .null }
    public static var attributeTypes: Set<AttributeType> { Wrapped.attributeTypes }
    public static var placeholder: Wrapped? { nil }
}
