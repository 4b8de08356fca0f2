import Foundation

/// The running result of `@count`, `@sum`, `@avg`, `@min` or `@max` over a collection.
///
/// nil elements are skipped (but counted by `@count`); integers sum exactly in 128 bits (no
/// `Int64` collection can overflow them), and the sum is an integer when it fits 64 bits, else
/// the double nearest the exact sum; `@avg` of integers is the double nearest the exact
/// quotient. A decimal makes the sum decimal, a double makes it a double.
struct Aggregation {
    let function: AggregateFunction
    private var count = 0
    private var numbers = 0
    /// The exact sum of the integers (and bools); with at most 2^64 elements of at most 2^63
    /// in magnitude it cannot overflow 128 bits.
    private var integerSum: Int128 = 0
    /// The sum of the doubles only (integers are kept apart, exact).
    private var doubleSum = 0.0
    private var decimalSum = Decimal(0)
    private var kind = 0  // 0 integers, 1 doubles, 2 decimals
    private var best: Value = .null

    init(_ function: AggregateFunction) { self.function = function }

    mutating func add(_ value: Value) {
        count += 1
        switch function {
        case .count, .distinctUnionOfObjects, .unionOfObjects, .distinctUnionOfArrays, .unionOfArrays, .distinctUnionOfSets: return
        case .min, .max:
            guard !value.isNull else { return }
            if best.isNull {
                best = value
            } else if let order = ValueComparison.order(value, best) {
                if (function == .min && order == .orderedAscending) || (function == .max && order == .orderedDescending) { best = value }
            }
        case .sum, .average:
            switch value {
            case .int(let i): addInteger(i)
            case .bool(let b): addInteger(b ? 1 : 0)
            case .double(let d):
                numbers += 1
                doubleSum += d
                decimalSum += Self.decimal(d)
                kind = max(kind, 1)
            case .decimal(let d):
                numbers += 1
                decimalSum += d
                kind = 2
            default: return
            }
        }
    }

    private mutating func addInteger(_ i: Int64) {
        numbers += 1
        integerSum += Int128(i)
        decimalSum += Decimal(i)
    }

    /// The integers' exact sum as a value: an integer when it fits, else the nearest double.
    private var integerSumValue: Value {
        if let exact = Int64(exactly: integerSum) { return .int(exact) }
        return .double(Double(integerSum))
    }

    var result: Value {
        switch function {
        case .count: return .int(Int64(count))
        case .min, .max: return best
        case .distinctUnionOfObjects, .unionOfObjects, .distinctUnionOfArrays, .unionOfArrays, .distinctUnionOfSets: return .null
        case .sum:
            switch kind {
            case 0: return integerSumValue
            case 1: return .double(Double(integerSum) + doubleSum)
            default: return .decimal(decimalSum)
            }
        case .average:
            guard numbers > 0 else { return .null }
            if kind == 2 { return .decimal(decimalSum / Decimal(numbers)) }
            if kind == 0 { return .double(Self.quotient(integerSum, numbers)) }
            return .double((Double(integerSum) + doubleSum) / Double(numbers))
        }
    }

    /// `sum / count` as a double, without the rounding of the sum when it is past 2^53: the
    /// integer quotient and the remainder's fraction are rounded apart.
    static func quotient(_ sum: Int128, _ count: Int) -> Double {
        let divisor = Int128(count)
        let (q, r) = sum.quotientAndRemainder(dividingBy: divisor)
        return Double(q) + Double(r) / Double(divisor)
    }

    /// A double as a decimal; `Decimal(_: Double)` traps on ±∞, so those (and NaN) become NaN.
    static func decimal(_ d: Double) -> Decimal {
        d.isFinite ? Decimal(d) : Decimal.nan
    }
}
