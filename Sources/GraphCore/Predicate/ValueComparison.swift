import Foundation

/// How two values compare in a predicate: numbers (and bools, as 0 and 1) by value whatever
/// their type, strings with optional case and diacritic folding, dates with dates, nil
/// equal only to nil.
enum ValueComparison {
    /// `==`: nil equals only nil; values of kinds that do not compare are not equal.
    static func equal(_ lhs: Value, _ rhs: Value, options: Comparison.Options = []) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.int(let a), .int(let b)): return a == b
        case (.string(let a), .string(let b)):
            return options.isEmpty ? a == b : StringFolding.fold(a, options) == StringFolding.fold(b, options)
        case (.object(let a), .object(let b)): return a == b
        default: return order(lhs, rhs, options: options) == .orderedSame
        }
    }

    /// The order of two non-nil values, or nil when they are not comparable.
    static func order(_ lhs: Value, _ rhs: Value, options: Comparison.Options = []) -> ComparisonResult? {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return ordered(a, b)
        case (.double(let a), .double(let b)): return a.isNaN || b.isNaN ? nil : ordered(a, b)
        case (.int(let a), .double(let b)): return orderedMixed(a, b)
        case (.double(let a), .int(let b)): return orderedMixed(b, a).map(flip)
        case (.decimal(let a), .decimal(let b)): return a.isNaN || b.isNaN ? nil : ordered(a, b)
        case (.decimal(let a), .int(let b)): return a.isNaN ? nil : ordered(a, Decimal(b))
        case (.int(let a), .decimal(let b)): return b.isNaN ? nil : ordered(Decimal(a), b)
        case (.decimal(let a), .double(let b)): return order(.double(NSDecimalNumber(decimal: a).doubleValue), .double(b))
        case (.double(let a), .decimal(let b)): return order(.double(a), .double(NSDecimalNumber(decimal: b).doubleValue))
        case (.bool(let a), .bool(let b)): return ordered(a ? 1 : 0, b ? 1 : 0)
        case (.bool(let a), .int), (.bool(let a), .double), (.bool(let a), .decimal): return order(.int(a ? 1 : 0), rhs)
        case (.int, .bool(let b)), (.double, .bool(let b)), (.decimal, .bool(let b)): return order(lhs, .int(b ? 1 : 0))
        case (.string(let a), .string(let b)):
            if options.isEmpty { return ordered(a, b) }
            return ordered(StringFolding.fold(a, options), StringFolding.fold(b, options))
        case (.date(let a), .date(let b)): return ordered(a, b)
        case (.uuid(let a), .uuid(let b)): return ordered(a.uuidString, b.uuidString)
        case (.uri(let a), .uri(let b)): return ordered(a.absoluteString, b.absoluteString)
        case (.binary(let a), .binary(let b)): return a == b ? .orderedSame : nil
        case (.object(let a), .object(let b)): return a == b ? .orderedSame : nil
        case (.objects(let a), .objects(let b)): return a == b ? .orderedSame : nil
        default: return nil
        }
    }

    /// Whether a value is a number (bools count, as NSNumber's do).
    static func isNumber(_ value: Value) -> Bool {
        switch value {
        case .int, .double, .decimal, .bool: return true
        default: return false
        }
    }

    static func ordered<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }

    /// An integer against a double, exact for every pair: 2^63 as a double is greater than
    /// every `Int64`, -0 equals 0, NaN is unordered. No conversion here can trap.
    static func orderedMixed(_ a: Int64, _ b: Double) -> ComparisonResult? {
        if b.isNaN { return nil }
        if let exact = Int64(exactly: b) { return ordered(a, exact) }
        // Not an integer in range: past the range (±∞ included), or with a fraction.
        if b >= twoToThe63 { return .orderedAscending }
        if b < -twoToThe63 { return .orderedDescending }
        // |b| < 2^63 with a fraction: its floor is an Int64, and a != b.
        guard let floor = Int64(exactly: b.rounded(.down)) else { return nil }
        return a <= floor ? .orderedAscending : .orderedDescending
    }

    /// 2^63, exactly representable as a double; `Int64.max` is 2^63 - 1.
    static let twoToThe63: Double = 9_223_372_036_854_775_808.0

    private static func flip(_ r: ComparisonResult) -> ComparisonResult {
        switch r {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }
}
