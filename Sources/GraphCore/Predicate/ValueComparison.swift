import Foundation

/// How two values compare in a predicate: numbers by value whatever their type, strings
/// with optional case and diacritic folding, nil equal only to nil.
enum ValueComparison {
    static func compare(_ lhs: Value, _ op: Comparison.Operator, _ rhs: Value, options: Comparison.Options) -> Bool {
        if lhs.isNull || rhs.isNull {
            switch op {
            case .equal: return lhs.isNull && rhs.isNull
            case .notEqual: return lhs.isNull != rhs.isNull
            default: return false
            }
        }
        switch op {
        case .beginsWith, .endsWith, .contains:
            guard case .string(let l) = lhs, case .string(let r) = rhs else { return false }
            let (a, b) = (fold(l, options), fold(r, options))
            switch op {
            case .beginsWith: return a.hasPrefix(b)
            case .endsWith: return a.hasSuffix(b)
            default: return b.isEmpty || a.contains(b)
            }
        case .equal, .notEqual:
            let same = order(lhs, rhs, options: options) == .orderedSame
            return op == .equal ? same : !same
        case .lessThan: return order(lhs, rhs, options: options) == .orderedAscending
        case .lessThanOrEqual:
            let o = order(lhs, rhs, options: options)
            return o == .orderedAscending || o == .orderedSame
        case .greaterThan: return order(lhs, rhs, options: options) == .orderedDescending
        case .greaterThanOrEqual:
            let o = order(lhs, rhs, options: options)
            return o == .orderedDescending || o == .orderedSame
        }
    }

    /// The order of two non-nil values, or nil when they are not comparable.
    static func order(_ lhs: Value, _ rhs: Value, options: Comparison.Options = []) -> ComparisonResult? {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return ordered(a, b)
        case (.double(let a), .double(let b)): return a.isNaN || b.isNaN ? nil : ordered(a, b)
        case (.int(let a), .double(let b)): return orderedMixed(a, b)
        case (.double(let a), .int(let b)): return orderedMixed(b, a).map(flip)
        case (.decimal(let a), .decimal(let b)): return ordered(a, b)
        case (.decimal(let a), .int(let b)): return ordered(a, Decimal(b))
        case (.int(let a), .decimal(let b)): return ordered(Decimal(a), b)
        case (.decimal(let a), .double(let b)): return ordered(NSDecimalNumber(decimal: a).doubleValue, b)
        case (.double(let a), .decimal(let b)): return ordered(a, NSDecimalNumber(decimal: b).doubleValue)
        case (.string(let a), .string(let b)):
            if options.isEmpty { return ordered(a, b) }
            return ordered(fold(a, options), fold(b, options))
        case (.bool(let a), .bool(let b)): return ordered(a ? 1 : 0, b ? 1 : 0)
        case (.date(let a), .date(let b)): return ordered(a, b)
        case (.uuid(let a), .uuid(let b)): return ordered(a.uuidString, b.uuidString)
        case (.uri(let a), .uri(let b)): return ordered(a.absoluteString, b.absoluteString)
        case (.binary(let a), .binary(let b)): return a == b ? .orderedSame : nil
        case (.object(let a), .object(let b)): return a == b ? .orderedSame : nil
        case (.objects(let a), .objects(let b)): return a == b ? .orderedSame : nil
        default: return nil
        }
    }

    static func fold(_ s: String, _ options: Comparison.Options) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? s : s.folding(options: folding, locale: nil)
    }

    private static func ordered<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }

    /// An integer against a double, exact even past 2^53.
    private static func orderedMixed(_ a: Int64, _ b: Double) -> ComparisonResult? {
        if b.isNaN { return nil }
        if let exact = Int64(exactly: b) { return ordered(a, exact) }
        if b >= 9.3e18 { return .orderedAscending }
        if b <= -9.3e18 { return .orderedDescending }
        let floor = Int64(b.rounded(.down))
        return a <= floor ? .orderedAscending : .orderedDescending
    }

    private static func flip(_ r: ComparisonResult) -> ComparisonResult {
        switch r {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }
}
