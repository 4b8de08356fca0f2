import Foundation

/// One operator applied to a value and a right-hand constant, prepared once per fetch:
/// string constants folded for `[c]`/`[d]`, `LIKE` patterns split, `MATCHES` patterns
/// compiled, integer constants unboxed.
struct ValueTest {
    let op: Comparison.Operator
    let options: Comparison.Options
    let constant: Value
    private let folded: FoldedConstant?
    private let like: LikePattern?
    private let regex: RegularExpression?
    private let integer: Int64?

    /// Prepares `op` against `constant`. `op` is a scalar operator: for `IN` the constant is
    /// a string to search in; `BETWEEN` goes through ``ListTest``.
    init(_ op: Comparison.Operator, _ constant: Value, options: Comparison.Options) throws(PredicateError) {
        self.op = op
        self.options = options
        self.constant = constant
        var folded: FoldedConstant?
        var like: LikePattern?
        var regex: RegularExpression?
        if case .string(let s) = constant {
            switch op {
            case .like: like = LikePattern(s, options: options)
            case .matches: regex = try Self.regularExpression(s, options: options)
            case .equal, .notEqual, .beginsWith, .endsWith, .contains, .in: folded = FoldedConstant(s, options: options)
            default: break
            }
        }
        if op == .utiConformsTo || op == .utiEquals {
            guard case .string(let identifier) = constant else {
                throw .typeMismatch(subject: op.rawValue, expected: "a type identifier string", got: "\(constant.kindName) \(constant.formatLiteral)")
            }
            if op == .utiConformsTo, !UniformTypeTree.isKnown(identifier) {
                throw .typeMismatch(subject: op.rawValue, expected: "a type of the public.* tree in docs/PREDICATES.md",
                                    got: "the unknown type \(Value.quoted(String(identifier.prefix(100))))")
            }
        }
        self.folded = folded
        self.like = like
        self.regex = regex
        if case .int(let i) = constant { integer = i } else { integer = nil }
    }

    /// The compiled `MATCHES` pattern: `[c]` matches case-insensitively, `[d]` folds
    /// diacritics out of the pattern here and out of each string before matching.
    static func regularExpression(_ pattern: String, options: Comparison.Options) throws(PredicateError) -> RegularExpression {
        let source = options.contains(.diacriticInsensitive) ? StringFolding.fold(pattern, .diacriticInsensitive) : pattern
        do {
            return try RegularExpression(source, caseInsensitive: options.contains(.caseInsensitive))
        } catch {
            throw .invalidRegularExpression(pattern: pattern, reason: error.description)
        }
    }

    /// Whether `value op constant` holds. A `MATCHES` on a long text asks `deadline` now
    /// and then; when it has passed the answer is false and `deadline.passed` is set, so
    /// the evaluator throws instead of using the answer.
    func matches(_ value: Value, deadline: FetchDeadline? = nil) -> Bool {
        switch op {
        case .equal: return equal(value)
        case .notEqual: return !equal(value)
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            if let integer, case .int(let i) = value {
                switch op {
                case .lessThan: return i < integer
                case .lessThanOrEqual: return i <= integer
                case .greaterThan: return i > integer
                default: return i >= integer
                }
            }
            if value.isNull || constant.isNull { return false }
            guard let order = ValueComparison.order(value, constant, options: options) else { return false }
            switch op {
            case .lessThan: return order == .orderedAscending
            case .lessThanOrEqual: return order != .orderedDescending
            case .greaterThan: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        case .beginsWith, .endsWith, .contains, .in:
            guard case .string(let s) = value, let folded else { return false }
            switch op {
            case .beginsWith: return folded.hasPrefix(s)
            case .endsWith: return folded.hasSuffix(s)
            case .contains: return folded.isContained(in: s)
            default:  // value IN "constant": the value is part of the constant string
                return StringFolding.fold(s, options).isEmpty || folded.folded.contains(StringFolding.fold(s, options))
            }
        case .like:
            guard case .string(let s) = value, let like else { return false }
            return like.matches(s)
        case .matches:
            guard case .string(let s) = value, let regex else { return false }
            let subject = options.contains(.diacriticInsensitive) ? StringFolding.fold(s, .diacriticInsensitive) : s
            return regex.wholeMatch(subject, shouldStop: deadline.map { deadline in { deadline.hasPassed() } }) ?? false
        case .between:
            return false
        case .utiConformsTo, .utiEquals:
            guard case .string(let s) = value, case .string(let identifier) = constant else { return false }
            if op == .utiEquals { return s.lowercased() == identifier.lowercased() }
            return UniformTypeTree.conforms(s, to: identifier)
        }
    }

    private func equal(_ value: Value) -> Bool {
        if let integer, case .int(let i) = value { return i == integer }
        if let folded, case .string(let s) = value { return folded.equals(s) }
        return ValueComparison.equal(value, constant, options: options)
    }
}

/// `IN` or `BETWEEN` against an array of constants, or another operator against each of
/// them (true when one matches).
struct ListTest {
    let op: Comparison.Operator
    let tests: [ValueTest]
    /// For `IN` over plain strings or integers: a set to look the value up in.
    private let strings: Set<String>?
    private let integers: Set<Int64>?

    init(_ op: Comparison.Operator, _ constants: [Value], options: Comparison.Options) throws(PredicateError) {
        self.op = op
        switch op {
        case .in:
            tests = try constants.map { value throws(PredicateError) in try ValueTest(.equal, value, options: options) }
        case .between:
            guard constants.count == 2 else {
                throw .typeMismatch(subject: "BETWEEN", expected: "two values {low, high}", got: "\(constants.count) values")
            }
            tests = [try ValueTest(.greaterThanOrEqual, constants[0], options: options),
                     try ValueTest(.lessThanOrEqual, constants[1], options: options)]
        default:
            tests = try constants.map { value throws(PredicateError) in try ValueTest(op, value, options: options) }
        }
        var strings: Set<String>? = nil
        var integers: Set<Int64>? = nil
        if op == .in, options.isEmpty, constants.count > 8 {
            let s = constants.compactMap { if case .string(let s) = $0 { s } else { nil } }
            let i = constants.compactMap { if case .int(let i) = $0 { i } else { nil } }
            if s.count == constants.count { strings = Set(s) }
            if i.count == constants.count { integers = Set(i) }
        }
        self.strings = strings
        self.integers = integers
    }

    func matches(_ value: Value, deadline: FetchDeadline? = nil) -> Bool {
        if op == .between { return tests[0].matches(value) && tests[1].matches(value) }
        if let strings, case .string(let s) = value { return strings.contains(s) }
        if let integers, case .int(let i) = value { return integers.contains(i) }
        for test in tests where test.matches(value, deadline: deadline) { return true }
        return false
    }
}
