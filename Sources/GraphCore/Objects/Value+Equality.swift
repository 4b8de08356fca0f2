import Foundation

// Values compare as the same value, not by IEEE 754: NaN equals NaN. Otherwise an attribute
// holding NaN would always look changed: saved again on every save, its version raised, and
// reported as a conflict to merge.

extension Value {
    /// Whether both are the same value. Unlike IEEE 754, NaN equals NaN, so that an attribute
    /// holding NaN does not look changed on every save.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.decimal(let a), .decimal(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.date(let a), .date(let b)): return a == b
        case (.binary(let a), .binary(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.uri(let a), .uri(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        case (.objects(let a), .objects(let b)): return a == b
        default: return false
        }
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .int(let value): hasher.combine(1); hasher.combine(value)
        case .double(let value): hasher.combine(2); hasher.combine(value.isNaN ? Double.nan : value)
        case .decimal(let value): hasher.combine(3); hasher.combine(value.isNaN ? Decimal.nan : value)
        case .string(let value): hasher.combine(4); hasher.combine(value)
        case .bool(let value): hasher.combine(5); hasher.combine(value)
        case .date(let value): hasher.combine(6); hasher.combine(value)
        case .binary(let value): hasher.combine(7); hasher.combine(value)
        case .uuid(let value): hasher.combine(8); hasher.combine(value)
        case .uri(let value): hasher.combine(9); hasher.combine(value)
        case .object(let value): hasher.combine(10); hasher.combine(value)
        case .objects(let value): hasher.combine(11); hasher.combine(value)
        }
    }
}
