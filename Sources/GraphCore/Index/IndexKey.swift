import Foundation

/// One value as an index orders it: nil first, then numbers (integers, doubles and bools by
/// value, exactly as ``ValueComparison`` compares them: `1 == 1.0`, `-0 == 0`), then NaN, then
/// strings (Swift's `<`, the order of a plain sort and of `<` in a predicate), then dates.
///
/// An attribute holds values of one kind, so an index holds nil plus one class of keys.
enum IndexKey {
    case null
    case int(Int64)
    case double(Double)  // never NaN
    case nan
    case string(String)
    case date(Date)

    /// The key of a value; nil for a kind no index covers (decimal, binary, UUID, URI, objects).
    init?(_ value: Value) {
        switch value {
        case .null: self = .null
        case .int(let i): self = .int(i)
        case .bool(let b): self = .int(b ? 1 : 0)
        case .double(let d): self = d.isNaN ? .nan : .double(d)
        case .string(let s): self = .string(s)
        case .date(let d): self = .date(d)
        default: return nil
        }
    }

    /// The class of a key: keys of different classes never compare equal in a predicate.
    var rank: Int {
        switch self {
        case .null: 0
        case .int, .double: 1
        case .nan: 2
        case .string: 3
        case .date: 4
        }
    }

    /// The attribute types whose values an index covers.
    static func covers(_ type: AttributeType) -> Bool {
        switch type {
        case .int16, .int32, .int64, .double, .float, .string, .bool, .date: true
        default: false
        }
    }

    /// The total order of keys: by class, then by value within it.
    static func order(_ a: IndexKey, _ b: IndexKey) -> Int {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.string(let x), .string(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.double(let x), .double(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.int(let x), .double(let y)): return sign(ValueComparison.orderedMixed(x, y))
        case (.double(let x), .int(let y)): return -sign(ValueComparison.orderedMixed(y, x))
        case (.date(let x), .date(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        default: return a.rank < b.rank ? -1 : (a.rank == b.rank ? 0 : 1)
        }
    }

    private static func sign(_ result: ComparisonResult?) -> Int {
        switch result {
        case .orderedAscending: -1
        case .orderedDescending: 1
        default: 0
        }
    }
}
