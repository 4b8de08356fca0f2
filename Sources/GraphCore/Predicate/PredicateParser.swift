import Foundation

/// A recursive-descent parser of the NSPredicate format language (grammar in `docs/PREDICATES.md`).
///
/// Precedence, loosest first: `OR`, `AND`, `NOT`, then comparisons. A chain of one
/// operator (`a AND b AND c`) becomes one compound; parentheses keep their own node.
struct PredicateParser {
    /// How deeply parentheses, `NOT`s, arrays and subqueries may nest.
    static let maximumNesting = 64

    let bytes: [UInt8]
    let tokens: [PredicateToken]
    var index = 0
    let arguments: [PredicateValue]
    var argumentIndex = 0
    var depth = 0
    let model: ObjectModel?
    /// Parsing a template: the slots found so far, one per format specifier, in order (nil:
    /// an ordinary parse, which takes ``arguments``).
    var slots: [PredicateTemplate.Slot]?
    /// False once the template met a specifier no slot can stand for (`%K`, a key after `.`).
    var slotsHold = true

    init(format: String, arguments: [PredicateValue], model: ObjectModel?) {
        bytes = Array(format.utf8)
        var lexer = PredicateLexer(bytes)
        tokens = lexer.tokens()
        self.arguments = arguments
        self.model = model
    }

    /// The whole format string as one predicate.
    mutating func parse() throws(PredicateError) -> Predicate {
        let predicate = try parseOr()
        guard current.kind == .end else {
            throw expected("AND, OR or the end of the predicate")
        }
        guard argumentIndex == arguments.count else {
            throw PredicateError.unusedArguments(used: argumentIndex, given: arguments.count)
        }
        return predicate
    }

    // MARK: - Tokens

    var current: PredicateToken { tokens[min(index, tokens.count - 1)] }
    var previous: PredicateToken? { index > 0 ? tokens[index - 1] : nil }

    func offset(_ token: PredicateToken) -> Int { PredicateLexer.characterOffset(token.offset, in: bytes) }

    func expected(_ what: String) -> PredicateError {
        if case .invalid(let error) = current.kind { return error }
        return .syntax(expected: what, found: current.display, offset: offset(current))
    }

    /// Notes that the parse reads what `expression` is, not only where it goes (a negated
    /// number is folded, `BETWEEN`'s bounds counted, a `CAST` of a constant made at once): a
    /// template's slot there would be read as a variable where its argument is a constant, so
    /// the template does not hold.
    mutating func inspect(_ expression: Expression) {
        if slots != nil, case .variable(let name) = expression, PredicateTemplate.isSlotName(name) { slotsHold = false }
    }

    mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    /// Whether the current token is this keyword (case-insensitive; `#` escaped words never are).
    func isKeyword(_ keyword: String) -> Bool {
        if case .word(let w) = current.kind { return w.uppercased() == keyword }
        return false
    }

    mutating func take(keyword: String) -> Bool {
        guard isKeyword(keyword) else { return false }
        advance()
        return true
    }

    mutating func take(symbol: String) -> Bool {
        guard current.kind == .symbol(symbol) else { return false }
        advance()
        return true
    }

    mutating func expect(symbol: String, _ what: String) throws(PredicateError) {
        guard take(symbol: symbol) else { throw expected(what) }
    }

    /// Enters one level of nesting opened by `token`.
    mutating func nest(_ token: PredicateToken) throws(PredicateError) {
        depth += 1
        if depth > Self.maximumNesting {
            throw PredicateError.nestingTooDeep(limit: Self.maximumNesting, offset: offset(token))
        }
    }

    // MARK: - Predicates

    mutating func parseOr() throws(PredicateError) -> Predicate {
        var parts = [try parseAnd()]
        while take(keyword: "OR") || take(symbol: "||") { parts.append(try parseAnd()) }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    mutating func parseAnd() throws(PredicateError) -> Predicate {
        var parts = [try parseNot()]
        while take(keyword: "AND") || take(symbol: "&&") { parts.append(try parseNot()) }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    mutating func parseNot() throws(PredicateError) -> Predicate {
        let token = current
        if take(keyword: "NOT") || take(symbol: "!") {
            try nest(token)
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    mutating func parsePrimary() throws(PredicateError) -> Predicate {
        if current.kind == .symbol("(") {
            // `(a + b) > 3` starts with a parenthesised expression, `(a > 3)` with a
            // parenthesised predicate: what follows the matching `)` tells which.
            if parenthesisOpensExpression() { return .comparison(try parseComparison()) }
            let open = current
            advance()
            try nest(open)
            defer { depth -= 1 }
            let inner = try parseOr()
            try expect(symbol: ")", "')' to close the '(' at offset \(offset(open))")
            return inner
        }
        if take(keyword: "TRUEPREDICATE") { return .true }
        if take(keyword: "FALSEPREDICATE") { return .false }
        return .comparison(try parseComparison())
    }

    /// Whether the `(` at the current token closes before an operator, a `.` or a `[` (so it
    /// opens an expression, not a predicate). Looks ahead without parsing.
    func parenthesisOpensExpression() -> Bool {
        var level = 0
        var position = index
        while position < tokens.count {
            switch tokens[position].kind {
            case .symbol("("): level += 1
            case .symbol(")"):
                level -= 1
                if level == 0 {
                    guard position + 1 < tokens.count else { return false }
                    switch tokens[position + 1].kind {
                    case .symbol(let s):
                        return !["&&", "||", ")", ","].contains(s)
                    case .word(let w):
                        return !["AND", "OR"].contains(w.uppercased())
                    default:
                        return false
                    }
                }
            case .end, .invalid: return false
            default: break
            }
            position += 1
        }
        return false
    }

    mutating func parseComparison() throws(PredicateError) -> Comparison {
        var modifier = Comparison.Modifier.direct
        if take(keyword: "ANY") || take(keyword: "SOME") {
            modifier = .any
        } else if take(keyword: "ALL") {
            modifier = .all
        } else if take(keyword: "NONE") {
            modifier = .none
        }
        let left = try parseExpression(expecting: modifier == .direct ? "a predicate" : "a key path after \(modifier.rawValue)")
        let operatorToken = current
        guard let op = comparisonOperator() else {
            throw expected("an operator after \(previous?.display ?? "the expression")")
        }
        advance()
        let options = try parseOptions()
        let right = try parseExpression(expecting: "a value after \(operatorToken.display.uppercased())")
        if op == .between { inspect(right) }
        if op == .between, case .array(let bounds) = right, bounds.count != 2 {
            throw PredicateError.syntax(expected: "two values {low, high} after BETWEEN", found: "\(bounds.count) values",
                                        offset: offset(operatorToken))
        }
        return Comparison(left, op, right, options: options, modifier: modifier)
    }

    func comparisonOperator() -> Comparison.Operator? {
        switch current.kind {
        case .symbol(let s):
            switch s {
            case "==", "=": return .equal
            case "!=", "<>": return .notEqual
            case "<": return .lessThan
            case "<=", "=<": return .lessThanOrEqual
            case ">": return .greaterThan
            case ">=", "=>": return .greaterThanOrEqual
            default: return nil
            }
        case .word(let w):
            switch w.uppercased() {
            case "BEGINSWITH": return .beginsWith
            case "ENDSWITH": return .endsWith
            case "CONTAINS": return .contains
            case "LIKE": return .like
            case "MATCHES": return .matches
            case "IN": return .in
            case "BETWEEN": return .between
            case "UTI-CONFORMS-TO": return .utiConformsTo
            case "UTI-EQUALS": return .utiEquals
            default: return nil
            }
        default:
            return nil
        }
    }

    /// `[c]`, `[d]`, `[cd]` (also `n` and `l`, accepted and ignored as on Apple platforms'
    /// normalized and locale options).
    mutating func parseOptions() throws(PredicateError) -> Comparison.Options {
        guard current.kind == .symbol("[") else { return [] }
        advance()
        guard case .word(let letters) = current.kind else { throw expected("options c, d after '['") }
        var options: Comparison.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n", "l": break
            default: throw expected("options c, d after '['")
            }
        }
        advance()
        try expect(symbol: "]", "']' after the options")
        return options
    }
}
