import Foundation

/// An argument of a predicate format string: a value (for `%@`, `%d`, `%f`, `%s`, or a
/// key path string for `%K`) or an array of them (for `%@` after `IN` or `BETWEEN`).
///
/// Literals make arguments directly: `["title", 10, 2.5, true, nil]`. Swift values convert
/// through ``PredicateArgument``.
public enum PredicateValue: Sendable, Hashable {
    /// One value.
    case value(Value)
    /// An array of values: `%@` becomes `{…}`.
    case array([PredicateValue])

    /// How the argument reads in an error message.
    var kindName: String {
        switch self {
        case .value(let v): return v.kindName
        case .array: return "array"
        }
    }
}

extension PredicateValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral
{
    /// A string argument.
    public init(stringLiteral value: String) { self = .value(.string(value)) }
    /// An integer argument.
    public init(integerLiteral value: Int64) { self = .value(.int(value)) }
    /// A double argument.
    public init(floatLiteral value: Double) { self = .value(.double(value)) }
    /// A boolean argument.
    public init(booleanLiteral value: Bool) { self = .value(.bool(value)) }
    /// A nil argument.
    public init(nilLiteral: ()) { self = .value(.null) }
    /// An array argument.
    public init(arrayLiteral elements: PredicateValue...) { self = .array(elements) }
}

/// A Swift value that can be a predicate format argument:
/// `try Predicate(format: "title == %@ AND plays > %d", title, minimum)`.
public protocol PredicateArgument {
    /// The argument as a predicate value.
    var predicateValue: PredicateValue { get }
}

extension PredicateValue: PredicateArgument {
    /// Itself.
    public var predicateValue: PredicateValue { self }
}
extension Value: PredicateArgument {
    /// The value as an argument.
    public var predicateValue: PredicateValue { .value(self) }
}
extension String: PredicateArgument {
    /// A string argument.
    public var predicateValue: PredicateValue { .value(.string(self)) }
}
extension Substring: PredicateArgument {
    /// A string argument.
    public var predicateValue: PredicateValue { .value(.string(String(self))) }
}
extension Int: PredicateArgument {
    /// An integer argument.
    public var predicateValue: PredicateValue { .value(.int(Int64(self))) }
}
extension Int64: PredicateArgument {
    /// An integer argument.
    public var predicateValue: PredicateValue { .value(.int(self)) }
}
extension Int32: PredicateArgument {
    /// An integer argument.
    public var predicateValue: PredicateValue { .value(.int(Int64(self))) }
}
extension Int16: PredicateArgument {
    /// An integer argument.
    public var predicateValue: PredicateValue { .value(.int(Int64(self))) }
}
extension Double: PredicateArgument {
    /// A double argument.
    public var predicateValue: PredicateValue { .value(.double(self)) }
}
extension Float: PredicateArgument {
    /// A double argument.
    public var predicateValue: PredicateValue { .value(.double(Double(self))) }
}
extension Bool: PredicateArgument {
    /// A boolean argument.
    public var predicateValue: PredicateValue { .value(.bool(self)) }
}
extension Decimal: PredicateArgument {
    /// A decimal argument.
    public var predicateValue: PredicateValue { .value(.decimal(self)) }
}
extension Date: PredicateArgument {
    /// A date argument.
    public var predicateValue: PredicateValue { .value(.date(self)) }
}
extension UUID: PredicateArgument {
    /// A UUID argument.
    public var predicateValue: PredicateValue { .value(.uuid(self)) }
}
extension URL: PredicateArgument {
    /// A URI argument.
    public var predicateValue: PredicateValue { .value(.uri(self)) }
}
extension Data: PredicateArgument {
    /// A binary argument.
    public var predicateValue: PredicateValue { .value(.binary(self)) }
}
extension ObjectID: PredicateArgument {
    /// An object argument (compares with relationships and `SELF`).
    public var predicateValue: PredicateValue { .value(.object(self)) }
}
extension ManagedObject: PredicateArgument {
    /// The object's ID as an argument.
    public var predicateValue: PredicateValue { .value(.object(objectID)) }
}
extension Optional: PredicateArgument where Wrapped: PredicateArgument {
    /// The wrapped value, or nil.
    public var predicateValue: PredicateValue { self?.predicateValue ?? .value(.null) }
}
extension Array: PredicateArgument where Element: PredicateArgument {
    /// An array argument.
    public var predicateValue: PredicateValue { .array(map(\.predicateValue)) }
}
extension Set: PredicateArgument where Element: PredicateArgument {
    /// An array argument (in no particular order).
    public var predicateValue: PredicateValue { .array(map(\.predicateValue)) }
}
