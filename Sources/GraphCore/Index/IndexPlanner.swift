import Foundation

/// A range of keys: the entries before it (`below`) and after it (`above`), each a prefix
/// and a suffix of an index's order.
struct KeyRange {
    let below: (IndexKey) -> Bool
    let above: (IndexKey) -> Bool

    /// The positions of the range in a tree.
    func positions(in tree: IndexTree) -> Range<IndexPosition> {
        let lower = tree.partitionPoint { !below($0.key) }
        let upper = tree.partitionPoint { above($0.key) }
        return lower < upper ? lower..<upper : lower..<lower
    }
}

/// A term of a predicate an index can answer: the attribute, the operator and the ranges
/// of keys that hold every object the term can match (the predicate is still judged on
/// each of them, so a range may hold more).
struct IndexTerm {
    let key: String
    let operation: String
    let ranges: [KeyRange]
    /// How selective the operator usually is: lower is better.
    let cost: Int
    /// The term's `[c]`/`[d]` options: only an index folding string keys the same way answers it.
    var folding: Comparison.Options = []

    /// Whether the ranges hold exactly the objects the term matches (not more, as
    /// `BEGINSWITH`'s may): a predicate that is only this term needs no judging then. A
    /// folded term is always judged.
    var isExact: Bool { operation != "BEGINSWITH" && folding.isEmpty }
}

/// Picks how an ``AtomicStore`` answers a fetch: which term of the predicate an index can
/// answer, and whether the order can be read from an index.
enum IndexPlanner {
    /// The terms an index could answer: the comparison itself, or the parts of a conjunction.
    static func terms(of predicate: Predicate?) -> [IndexTerm] {
        switch predicate {
        case .comparison(let c): return term(c).map { [$0] } ?? []
        case .and(let parts): return parts.compactMap { if case .comparison(let c) = $0 { term(c) } else { nil } }
        default: return []
        }
    }

    /// The term of `key op constant`, when an index can answer it exactly as the evaluator does.
    static func term(_ c: Comparison) -> IndexTerm? {
        guard c.modifier == .direct, case .keyPath(let key) = c.left, !key.contains(".") else { return nil }
        if !c.options.isEmpty { return foldedTerm(c, key: key) }
        let constants: [Value]
        switch c.right {
        case .constant(let value): constants = [value]
        case .array(let elements):
            var values: [Value] = []
            for element in elements {
                guard case .constant(let value) = element else { return nil }
                values.append(value)
            }
            constants = values
        default: return nil
        }
        switch c.op {
        case .equal:
            guard case .constant = c.right, let k = IndexKey(constants[0]) else { return nil }
            if case .nan = k { return nil }
            return IndexTerm(key: key, operation: "==", ranges: [point(k)], cost: 0)
        case .in:
            guard case .array = c.right, !constants.isEmpty else { return nil }
            var ranges: [KeyRange] = []
            for value in constants {
                guard let k = IndexKey(value) else { return nil }
                if case .nan = k { continue }  // equal to nothing
                ranges.append(point(k))
            }
            return IndexTerm(key: key, operation: "IN", ranges: ranges, cost: 1)
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            guard case .constant = c.right, let k = IndexKey(constants[0]), k.rank != 0 else { return nil }
            if case .nan = k { return nil }
            let r = k.rank
            let range: KeyRange
            switch c.op {
            case .lessThan: range = KeyRange(below: { $0.rank < r }, above: { $0.rank > r || ($0.rank == r && IndexKey.order($0, k) >= 0) })
            case .lessThanOrEqual: range = KeyRange(below: { $0.rank < r }, above: { $0.rank > r || ($0.rank == r && IndexKey.order($0, k) > 0) })
            case .greaterThan: range = KeyRange(below: { $0.rank < r || ($0.rank == r && IndexKey.order($0, k) <= 0) }, above: { $0.rank > r })
            default: range = KeyRange(below: { $0.rank < r || ($0.rank == r && IndexKey.order($0, k) < 0) }, above: { $0.rank > r })
            }
            return IndexTerm(key: key, operation: c.op.rawValue, ranges: [range], cost: 3)
        case .between:
            guard constants.count == 2, let low = IndexKey(constants[0]), let high = IndexKey(constants[1]),
                  low.rank != 0, low.rank == high.rank else { return nil }
            if case .nan = low { return nil }
            let r = low.rank
            let range = KeyRange(below: { $0.rank < r || ($0.rank == r && IndexKey.order($0, low) < 0) },
                                 above: { $0.rank > r || ($0.rank == r && IndexKey.order($0, high) > 0) })
            return IndexTerm(key: key, operation: "BETWEEN", ranges: [range], cost: 2)
        case .beginsWith:
            guard case .constant(.string(let prefix)) = c.right else { return nil }
            let p = IndexKey.string(prefix)
            let scalars = Array(Self.nfc(prefix).unicodeScalars)
            // Strings that begin with the prefix (by characters) begin with it in NFC scalars,
            // which Swift's `<` orders: they form one run from the prefix on.
            let range = KeyRange(below: { $0.rank < 3 || ($0.rank == 3 && IndexKey.order($0, p) < 0) },
                                 above: { key in
                                     guard key.rank == 3, case .string(let s) = key else { return key.rank > 3 }
                                     return IndexKey.order(key, p) > 0 && !Self.nfc(s).unicodeScalars.starts(with: scalars)
                                 })
            return IndexTerm(key: key, operation: "BEGINSWITH", ranges: [range], cost: 4)
        default:
            return nil
        }
    }

    /// `key ==[c] "text"` or `key BEGINSWITH[cd] "text"`: the range of the folded constant in
    /// an index that folds its keys with the same options (its candidates are then judged).
    private static func foldedTerm(_ c: Comparison, key: String) -> IndexTerm? {
        guard case .constant(.string(let text)) = c.right else { return nil }
        let folded = StringFolding.fold(text, c.options)
        let flags = "[" + (c.options.contains(.caseInsensitive) ? "c" : "") + (c.options.contains(.diacriticInsensitive) ? "d" : "") + "]"
        switch c.op {
        case .equal:
            return IndexTerm(key: key, operation: "==" + flags, ranges: [point(.string(folded))], cost: 0, folding: c.options)
        case .beginsWith:
            guard let plain = term(Comparison(.keyPath(key), .beginsWith, .constant(.string(folded)))) else { return nil }
            return IndexTerm(key: key, operation: "BEGINSWITH" + flags, ranges: plain.ranges, cost: plain.cost, folding: c.options)
        default:
            return nil
        }
    }

    /// The keys equal to `k` (nil: only nil).
    private static func point(_ k: IndexKey) -> KeyRange {
        KeyRange(below: { IndexKey.order($0, k) < 0 }, above: { IndexKey.order($0, k) > 0 })
    }

    /// A string in Unicode normalization form C (ASCII strings are already).
    static func nfc(_ s: String) -> String {
        s.utf8.allSatisfy { $0 < 0x80 } ? s : s.precomposedStringWithCanonicalMapping
    }
}
