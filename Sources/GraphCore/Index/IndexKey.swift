import Foundation

/// One value as an index orders it: nil first, then numbers (integers, doubles and bools by
/// value, exactly as ``ValueComparison`` compares them: `1 == 1.0`, `-0 == 0`), then NaN, then
/// strings (Swift's `<`, the order of a plain sort and of `<` in a predicate), then dates, then
/// objects (a to-one relationship's destination, by reference, store and entity hierarchy: an
/// order that only groups equal IDs together, as `==` on IDs compares them).
///
/// An attribute holds values of one kind, so an index holds nil plus one class of keys.
enum IndexKey {
    case null
    case int(Int64)
    case double(Double)  // never NaN
    case nan
    case string(String)
    case date(Date)
    case object(ObjectID)

    /// The key of a value; nil for a kind no index covers (decimal, binary, UUID, URI, to-many).
    init?(_ value: Value) {
        switch value {
        case .null: self = .null
        case .int(let i): self = .int(i)
        case .bool(let b): self = .int(b ? 1 : 0)
        case .double(let d): self = d.isNaN ? .nan : .double(d)
        case .string(let s): self = .string(s)
        case .date(let d): self = .date(d)
        case .object(let id): self = .object(id)
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
        case .object: 5
        }
    }

    /// The attribute types whose values an index covers (and to-one relationships, by the
    /// destination's ID).
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
        case (.object(let x), .object(let y)): return order(x, y)
        default: return a.rank < b.rank ? -1 : (a.rank == b.rank ? 0 : 1)
        }
    }

    /// The order of two compound keys (an entry's first key and the rest), element by element.
    static func order(_ a: IndexKey, _ aRest: [IndexKey], _ b: IndexKey, _ bRest: [IndexKey]) -> Int {
        let byFirst = order(a, b)
        if byFirst != 0 || (aRest.isEmpty && bRest.isEmpty) { return byFirst }
        for (x, y) in zip(aRest, bRest) {
            let byElement = order(x, y)
            if byElement != 0 { return byElement }
        }
        return aRest.count < bRest.count ? -1 : (aRest.count == bRest.count ? 0 : 1)
    }

    /// A total order of object IDs that is 0 exactly when they are equal (the same reference,
    /// store and entity hierarchy): by reference number first, the cheap and usual difference.
    static func order(_ a: ObjectID, _ b: ObjectID) -> Int {
        let x = a.storage, y = b.storage
        if x === y { return 0 }
        if x.number != y.number { return x.number < y.number ? -1 : 1 }
        let byReference = SnapshotIndexEntry.referenceOrder(x.reference, y.reference)
        if byReference != 0 { return byReference }
        if x.store !== y.store {
            switch (x.store?.identifier, y.store?.identifier) {
            case (nil, nil): break
            case (nil, _): return -1
            case (_, nil): return 1
            case (let p?, let q?): if p != q { return p < q ? -1 : 1 }
            }
        }
        if x.entity === y.entity { return 0 }
        let p = x.entity.root.name, q = y.entity.root.name
        return p < q ? -1 : (p == q ? 0 : 1)
    }

    private static func sign(_ result: ComparisonResult?) -> Int {
        switch result {
        case .orderedAscending: -1
        case .orderedDescending: 1
        default: 0
        }
    }
}
