import Foundation

/// The running result of `@count`, `@sum`, `@avg`, `@min` or `@max` over a collection.
///
/// nil elements are skipped (but counted by `@count`); integers sum exactly (as a double
/// past the 64-bit range); a decimal makes the sum decimal, a double makes it a double.
struct Aggregation {
    let function: AggregateFunction
    private var count = 0
    private var numbers = 0
    private var integerSum: Int64 = 0
    private var doubleSum = 0.0
    private var decimalSum = Decimal(0)
    private var kind = 0  // 0 integers, 1 doubles, 2 decimals
    private var best: Value = .null

    init(_ function: AggregateFunction) { self.function = function }

    mutating func add(_ value: Value) {
        count += 1
        switch function {
        case .count: return
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
                decimalSum += Decimal(d)
                kind = max(kind, 1)
            case .decimal(let d):
                numbers += 1
                doubleSum += NSDecimalNumber(decimal: d).doubleValue
                decimalSum += d
                kind = 2
            default: return
            }
        }
    }

    private mutating func addInteger(_ i: Int64) {
        numbers += 1
        doubleSum += Double(i)
        decimalSum += Decimal(i)
        if kind == 0 {
            let (sum, overflow) = integerSum.addingReportingOverflow(i)
            if overflow { kind = 1 } else { integerSum = sum }
        }
    }

    var result: Value {
        switch function {
        case .count: return .int(Int64(count))
        case .min, .max: return best
        case .sum:
            switch kind {
            case 0: return .int(integerSum)
            case 1: return .double(doubleSum)
            default: return .decimal(decimalSum)
            }
        case .average:
            guard numbers > 0 else { return .null }
            if kind == 2 { return .decimal(decimalSum / Decimal(numbers)) }
            return .double(doubleSum / Double(numbers))
        }
    }
}
