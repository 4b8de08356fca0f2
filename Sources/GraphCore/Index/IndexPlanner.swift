import Foundation

/// A term of a predicate an index element can answer: the property, the operator and the
/// ranges of the element's keys that hold every object the term can match (the predicate is
/// still judged on each of them unless ``isExact``, so a range may hold more).
struct IndexTerm {
    let key: String
    let operation: String
    let ranges: [KeyRange]
    /// How selective the operator usually is: lower is better.
    let cost: Int
    /// The one key every match holds in the element (`==`, `==[c]`): such a term can lead a
    /// compound range, the next element's term after it.
    var point: IndexKey?
    /// Whether the ranges hold exactly the objects the term matches (not more, as
    /// `BEGINSWITH`'s or a folded element's may): a predicate that is only this term needs no
    /// judging then.
    var isExact = true
}

/// Picks how a store answers a fetch: which terms of the predicate an index can answer (on
/// its first elements, one equality each, and a term on the element after them), and whether
/// the order can be read from an index.
enum IndexPlanner {
    /// The comparisons an index could answer: the predicate itself, or the parts of a conjunction.
    static func comparisons(of predicate: Predicate?) -> [Comparison] {
        switch predicate {
        case .comparison(let c): return [c]
        case .and(let parts): return parts.compactMap { if case .comparison(let c) = $0 { c } else { nil } }
        default: return []
        }
    }

    /// The term of `key op constant` for an index element folding its strings as `folding`
    /// says, when the element can answer it as the evaluator does.
    ///
    /// A plain element answers plain comparisons. A folded element answers comparisons folded
    /// the same way (`==`, `IN`, `BEGINSWITH`), and plain `==` and `IN` too: equal strings have
    /// equal folded forms, so the folded constant's keys hold every match (judged exactly).
    static func term(_ c: Comparison, folding: Comparison.Options) -> IndexTerm? {
        guard c.modifier == .direct, case .keyPath(let key) = c.left, !key.utf8.contains(UInt8(ascii: ".")) else { return nil }  // bytes: a String argument to `contains` would go through Foundation
        if folding.isEmpty {
            return c.options.isEmpty ? plainTerm(c, key: key) : nil
        }
        if c.options == folding { return foldedTerm(c, key: key) }
        guard c.options.isEmpty, c.op == .equal || c.op == .in, let plain = plainTerm(c, key: key, folding: folding) else { return nil }
        var term = plain
        term.isExact = false
        return term
    }

    /// The constants of the comparison's right side: one, or a list (of constants, or of objects).
    private static func constants(_ c: Comparison) -> [Value]? {
        switch c.right {
        case .constant(.objects(let ids)) where c.op == .in: return ids.map(Value.object)
        case .constant(let value): return [value]
        case .array(let elements):
            var values: [Value] = []
            for element in elements {
                guard case .constant(let value) = element else { return nil }
                values.append(value)
            }
            return values
        default: return nil
        }
    }

    /// A plain comparison's term; with `folding`, for `==` and `IN` only, the keys of the
    /// constants folded that way (a folded element's keys).
    private static func plainTerm(_ c: Comparison, key: String, folding: Comparison.Options = []) -> IndexTerm? {
        guard let constants = constants(c) else { return nil }
        func indexKey(_ value: Value) -> IndexKey? {
            if !folding.isEmpty, case .string(let s) = value { return .string(StringFolding.fold(s, folding)) }
            return IndexKey(value)
        }
        let isList: Bool
        switch c.right {
        case .array, .constant(.objects): isList = true
        default: isList = false
        }
        switch c.op {
        case .equal:
            guard !isList, let k = indexKey(constants[0]) else { return nil }
            if case .nan = k { return nil }
            return IndexTerm(key: key, operation: "==", ranges: [point(k)], cost: 0, point: k)
        case .in:
            guard isList, !constants.isEmpty else { return nil }
            var ranges: [KeyRange] = []
            for value in constants {
                guard let k = indexKey(value) else { return nil }
                if case .nan = k { continue }  // equal to nothing
                ranges.append(point(k))
            }
            return IndexTerm(key: key, operation: "IN", ranges: ranges, cost: 1)
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            // Objects are not ordered: `<` on a relationship is for the evaluator alone.
            guard !isList, let k = IndexKey(constants[0]), k.rank != 0, k.rank != 5 else { return nil }
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
                  low.rank != 0, low.rank != 5, low.rank == high.rank else { return nil }
            if case .nan = low { return nil }
            let r = low.rank
            let range = KeyRange(below: { $0.rank < r || ($0.rank == r && IndexKey.order($0, low) < 0) },
                                 above: { $0.rank > r || ($0.rank == r && IndexKey.order($0, high) > 0) })
            return IndexTerm(key: key, operation: "BETWEEN", ranges: [range], cost: 2)
        case .beginsWith:
            guard case .constant(.string(let prefix)) = c.right else { return nil }
            return IndexTerm(key: key, operation: "BEGINSWITH", ranges: [prefixRange(prefix)], cost: 4, isExact: false)
        default:
            return nil
        }
    }

    /// The strings that begin with `prefix` (by characters): they begin with it in NFC
    /// scalars, which Swift's `<` orders, so they form one run from the prefix on.
    private static func prefixRange(_ prefix: String) -> KeyRange {
        let p = IndexKey.string(prefix)
        let scalars = Array(Self.nfc(prefix).unicodeScalars)
        return KeyRange(below: { $0.rank < 3 || ($0.rank == 3 && IndexKey.order($0, p) < 0) },
                        above: { key in
                            guard key.rank == 3, case .string(let s) = key else { return key.rank > 3 }
                            return IndexKey.order(key, p) > 0 && !Self.nfc(s).unicodeScalars.starts(with: scalars)
                        })
    }

    /// `key ==[c] "text"`, `key IN[c] {…}` or `key BEGINSWITH[cd] "text"` on an element folding
    /// its keys with the same options: the ranges of the folded constants (candidates judged).
    private static func foldedTerm(_ c: Comparison, key: String) -> IndexTerm? {
        let flags = "[" + (c.options.contains(.caseInsensitive) ? "c" : "") + (c.options.contains(.diacriticInsensitive) ? "d" : "") + "]"
        switch c.op {
        case .equal, .in:
            guard let plain = plainTerm(c, key: key, folding: c.options) else { return nil }
            return IndexTerm(key: key, operation: plain.operation + flags, ranges: plain.ranges, cost: plain.cost,
                             point: plain.point, isExact: false)
        case .beginsWith:
            guard case .constant(.string(let text)) = c.right else { return nil }
            return IndexTerm(key: key, operation: "BEGINSWITH" + flags, ranges: [prefixRange(StringFolding.fold(text, c.options))],
                             cost: 4, isExact: false)
        default:
            return nil
        }
    }

    /// The keys equal to `k` (nil: only nil).
    private static func point(_ k: IndexKey) -> KeyRange {
        KeyRange(below: { IndexKey.order($0, k) < 0 }, above: { IndexKey.order($0, k) > 0 }, point: k)
    }

    /// A string in Unicode normalization form C (ASCII strings are already).
    static func nfc(_ s: String) -> String {
        s.utf8.allSatisfy { $0 < 0x80 } ? s : s.precomposedStringWithCanonicalMapping
    }
}
