import Foundation

/// What the built-in functions compute, on values (no records): shared by the evaluator and
/// by the compiler, which folds functions of constants.
///
/// Integers are checked: a sum, difference, product, power, negation or absolute value that
/// leaves the 64-bit range becomes the double nearest the exact result (as NSExpression's
/// arithmetic on NSNumbers gives a double); division and modulus by zero are errors.
/// A nil argument makes the result nil.
enum FunctionEvaluation {
    /// `subject` names the expression in errors (`plays / 0`).
    static func scalar(_ function: BuiltinFunction, _ arguments: [Value], subject: String) throws(PredicateError) -> Value {
        if arguments.contains(where: \.isNull) { return .null }
        func mismatch(_ expected: String, _ value: Value) -> PredicateError {
            .typeMismatch(subject: "\(function.rawValue) in \(subject.prefix(100))", expected: expected,
                          got: "\(value.kindName) \(value.formatLiteral.prefix(60))")
        }
        func number(_ index: Int) throws(PredicateError) -> Value {
            let value = arguments[index]
            switch value {
            case .int, .double, .decimal: return value
            case .bool(let b): return .int(b ? 1 : 0)
            default: throw mismatch("numbers", value)
            }
        }
        func integer(_ index: Int) throws(PredicateError) -> Int64 {
            switch arguments[index] {
            case .int(let i): return i
            case .bool(let b): return b ? 1 : 0
            default: throw mismatch("integers", arguments[index])
            }
        }
        func string(_ index: Int) throws(PredicateError) -> String {
            guard case .string(let s) = arguments[index] else { throw mismatch("strings", arguments[index]) }
            return s
        }
        switch function {
        case .add, .subtract:
            if case .date(let date) = arguments[0] {
                if function == .subtract, case .date(let other) = arguments[1] {
                    return .double(date.timeIntervalSince(other))
                }
                return .date(date.addingTimeInterval(function == .add ? try double(number(1)) : -(try double(number(1)))))
            }
            if function == .add, case .date(let date) = arguments[1] { return .date(date.addingTimeInterval(try double(number(0)))) }
            return try arithmetic(function, number(0), number(1), subject: subject)
        case .multiply, .divide, .modulus, .power:
            return try arithmetic(function, number(0), number(1), subject: subject)
        case .sqrt: return .double(Foundation.sqrt(try double(number(0))))
        case .log: return .double(Foundation.log10(try double(number(0))))
        case .ln: return .double(Foundation.log(try double(number(0))))
        case .exp: return .double(Foundation.exp(try double(number(0))))
        case .floor, .ceiling, .trunc:
            let value = try number(0)
            let rule: FloatingPointRoundingRule = function == .floor ? .down : function == .ceiling ? .up : .towardZero
            switch value {
            case .double(let d): return .double(d.rounded(rule))
            case .decimal(let d):
                var input = d
                var result = Decimal()
                let mode: NSDecimalNumber.RoundingMode = function == .floor ? .down : function == .ceiling ? .up : (d < 0 ? .up : .down)
                NSDecimalRound(&result, &input, 0, mode)
                return .decimal(result)
            default: return value
            }
        case .abs:
            switch try number(0) {
            case .int(let i): return integerValue(Swift.abs(Int128(i)))
            case .double(let d): return .double(Swift.abs(d))
            case .decimal(let d): return .decimal(d < 0 ? -d : d)
            default: return .null
            }
        case .uppercase: return .string(try string(0).uppercased())
        case .lowercase: return .string(try string(0).lowercased())
        case .length: return .int(Int64(try string(0).utf16.count))
        case .bitwiseAnd: return .int(try integer(0) & integer(1))
        case .bitwiseOr: return .int(try integer(0) | integer(1))
        case .bitwiseXor: return .int(try integer(0) ^ integer(1))
        // Swift's `<<` and `>>` on integers shift by any amount without trapping.
        case .leftShift: return .int(try integer(0) << integer(1))
        case .rightShift: return .int(try integer(0) >> integer(1))
        case .onesComplement: return .int(~(try integer(0)))
        case .now: return .date(Date())
        case .random: return .double(Double.random(in: 0..<1))
        case .randomBelow:
            let bound = try integer(0)
            guard bound > 0 else { throw mismatch("a positive integer", arguments[0]) }
            return .int(Int64.random(in: 0..<bound))
        case .noIndex: return arguments[0]
        case .sum, .count, .min, .max, .average, .median, .mode, .stddev:
            return try collection(function, arguments, subject: subject).first ?? .null
        }
    }

    /// A function of a collection's elements; `mode:` gives every most frequent value, the
    /// others one value.
    static func collection(_ function: BuiltinFunction, _ elements: [Value], subject: String) throws(PredicateError) -> [Value] {
        switch function {
        case .count: return [.int(Int64(elements.count))]
        case .sum, .average, .min, .max:
            let aggregate: AggregateFunction = function == .sum ? .sum : function == .average ? .average : function == .min ? .min : .max
            var accumulator = Aggregation(aggregate)
            for element in elements { accumulator.add(element) }
            return [accumulator.result]
        case .median:
            let numbers = elements.filter(ValueComparison.isNumber).sorted { ValueComparison.order($0, $1) == .orderedAscending }
            guard !numbers.isEmpty else { return [.null] }
            let middle = numbers.count / 2
            if numbers.count % 2 == 1 { return [numbers[middle]] }
            var accumulator = Aggregation(.average)
            accumulator.add(numbers[middle - 1])
            accumulator.add(numbers[middle])
            return [accumulator.result]
        case .mode:
            var counts: [Value: Int] = [:]
            var order: [Value] = []
            for element in elements where !element.isNull {
                if counts[element] == nil { order.append(element) }
                counts[element, default: 0] += 1
            }
            let most = counts.values.max() ?? 0
            return order.filter { counts[$0] == most }
        case .stddev:
            let numbers = elements.compactMap(doubleOrNil)
            guard !numbers.isEmpty else { return [.null] }
            let mean = numbers.reduce(0, +) / Double(numbers.count)
            let variance = numbers.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(numbers.count)
            return [.double(variance.squareRoot())]
        default:
            return [try scalar(function, elements, subject: subject)]
        }
    }

    /// `+ - * / % **` on two numbers: integers exactly (past 64 bits, the nearest double),
    /// decimals as decimals, anything with a double as doubles.
    static func arithmetic(_ function: BuiltinFunction, _ a: Value, _ b: Value, subject: String) throws(PredicateError) -> Value {
        func byZero() -> PredicateError { .arithmetic(expression: String(subject.prefix(100)), reason: "division by zero") }
        switch (a, b) {
        case (.int(let x), .int(let y)):
            let (x128, y128) = (Int128(x), Int128(y))
            switch function {
            case .add: return integerValue(x128 + y128)
            case .subtract: return integerValue(x128 - y128)
            case .multiply: return integerValue(x128 * y128)
            case .divide:
                guard y != 0 else { throw byZero() }
                let (q, r) = x128.quotientAndRemainder(dividingBy: y128)
                return r == 0 ? integerValue(q) : .double(Double(x) / Double(y))
            case .modulus:
                guard y != 0 else { throw byZero() }
                return integerValue(x128 % y128)
            default:
                return power(x, y)
            }
        case (.decimal, _), (_, .decimal):
            if case .double = a { break }
            if case .double = b { break }
            let (x, y) = (decimal(a), decimal(b))
            switch function {
            case .add: return .decimal(x + y)
            case .subtract: return .decimal(x - y)
            case .multiply: return .decimal(x * y)
            case .divide:
                guard !y.isZero else { throw byZero() }
                return .decimal(x / y)
            default: break
            }
        default: break
        }
        let (x, y) = (double(a), double(b))
        switch function {
        case .add: return .double(x + y)
        case .subtract: return .double(x - y)
        case .multiply: return .double(x * y)
        case .divide:
            guard y != 0 else { throw byZero() }
            return .double(x / y)
        case .modulus:
            guard y != 0 else { throw byZero() }
            return .double(fmod(x, y))
        default: return .double(pow(x, y))
        }
    }

    /// `x ** y` on integers: exact while it fits 64 bits, else (and for a negative exponent) a double.
    static func power(_ x: Int64, _ y: Int64) -> Value {
        guard y >= 0 else { return .double(pow(Double(x), Double(y))) }
        var result: Int64 = 1
        var base = x
        var exponent = y
        while exponent > 0 {
            if exponent & 1 == 1 {
                let (product, overflow) = result.multipliedReportingOverflow(by: base)
                if overflow { return .double(pow(Double(x), Double(y))) }
                result = product
            }
            exponent >>= 1
            if exponent > 0 {
                let (square, overflow) = base.multipliedReportingOverflow(by: base)
                if overflow { return .double(pow(Double(x), Double(y))) }
                base = square
            }
        }
        return .int(result)
    }

    /// An exact integer result: an `int` when it fits 64 bits, else the nearest double.
    static func integerValue(_ exact: Int128) -> Value {
        if let fits = Int64(exactly: exact) { return .int(fits) }
        return .double(Double(exact))
    }

    static func double(_ value: Value) -> Double { doubleOrNil(value) ?? .nan }

    static func doubleOrNil(_ value: Value) -> Double? {
        switch value {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .decimal(let d): return NSDecimalNumber(decimal: d).doubleValue
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    static func decimal(_ value: Value) -> Decimal {
        switch value {
        case .int(let i): return Decimal(i)
        case .decimal(let d): return d
        case .double(let d): return Aggregation.decimal(d)
        case .bool(let b): return b ? 1 : 0
        default: return .nan
        }
    }

    /// `CAST(value, type)` of a value known when evaluating: `NSNumber`, `NSDate` or `NSString`.
    static func cast(_ value: Value, to type: String, subject: String) throws(PredicateError) -> Value {
        if value.isNull { return .null }
        func mismatch() -> PredicateError {
            .typeMismatch(subject: String(subject.prefix(100)), expected: "a value that converts to \(type)",
                          got: "\(value.kindName) \(value.formatLiteral.prefix(60))")
        }
        switch (type, value) {
        case ("NSNumber", .int), ("NSNumber", .double), ("NSNumber", .decimal): return value
        case ("NSNumber", .bool(let b)): return .int(b ? 1 : 0)
        case ("NSNumber", .date(let d)): return .double(d.timeIntervalSinceReferenceDate)
        case ("NSNumber", .string(let s)):
            if let i = Int64(s) { return .int(i) }
            if let d = Double(s) { return .double(d) }
            throw mismatch()
        case ("NSDate", .date): return value
        case ("NSDate", .int(let i)): return .date(Date(timeIntervalSinceReferenceDate: Double(i)))
        case ("NSDate", .double(let d)): return .date(Date(timeIntervalSinceReferenceDate: d))
        case ("NSDate", .decimal(let d)): return .date(Date(timeIntervalSinceReferenceDate: NSDecimalNumber(decimal: d).doubleValue))
        case ("NSDate", .string(let s)):
            guard let date = ISO8601.date(from: s) else { throw mismatch() }
            return .date(date)
        case ("NSString", .string): return value
        case ("NSString", .int(let i)): return .string(String(i))
        case ("NSString", .double(let d)): return .string(String(d))
        case ("NSString", .decimal(let d)): return .string(d.description)
        case ("NSString", .bool(let b)): return .string(b ? "1" : "0")
        case ("NSString", .date(let d)): return .string(ISO8601.string(from: d))
        case ("NSString", .uuid(let u)): return .string(u.uuidString)
        case ("NSString", .uri(let u)): return .string(u.absoluteString)
        default: throw mismatch()
        }
    }
}
