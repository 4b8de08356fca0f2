import Foundation

// Expressions: the operators of NSExpression (loosest first `|`, `&`, `+ -`, `* /`, `**`,
// then unary `-` and `~`), operands (literals, key paths, SELF, variables, format arguments,
// arrays, parenthesised expressions, calls) and the tails that follow them (`.key`, `.%K`,
// `.@count`, `[FIRST]`).

extension PredicateParser {
    mutating func parseExpression(expecting what: String) throws(PredicateError) -> Expression {
        try parseBinary(minimumLevel: 0, expecting: what)
    }

    /// The binary operator at the current token and its level, loosest first: `|` 0, `&` 1,
    /// `+ -` 2, `* /` 3, `**` 4.
    func binaryOperator() -> (level: Int, function: BuiltinFunction)? {
        guard case .symbol(let s) = current.kind else { return nil }
        switch s {
        case "|": return (0, .bitwiseOr)
        case "&": return (1, .bitwiseAnd)
        case "+": return (2, .add)
        case "-": return (2, .subtract)
        case "*": return (3, .multiply)
        case "/": return (3, .divide)
        case "**": return (4, .power)
        default: return nil
        }
    }

    /// Operators of `minimumLevel` or tighter, each level left-associative (precedence climbing).
    /// Each operator of a chain nests the tree one level deeper (`a - b - c` is `(a - b) - c`),
    /// so each counts toward ``maximumNesting`` until the chain ends.
    mutating func parseBinary(minimumLevel: Int, expecting what: String) throws(PredicateError) -> Expression {
        var result = try parseUnary(expecting: what)
        let outer = depth
        defer { depth = outer }
        while let (level, function) = binaryOperator(), level >= minimumLevel {
            let token = current
            advance()
            try nest(token)
            let right = try parseBinary(minimumLevel: level + 1, expecting: "a value after '\(function.infixOperator ?? "")'")
            result = .function(function, [result, right])
        }
        return result
    }

    /// `-x` (a negative constant when `x` is a number literal, else `0 - x`) and `~x`.
    mutating func parseUnary(expecting what: String) throws(PredicateError) -> Expression {
        let token = current
        guard token.kind == .symbol("-") || token.kind == .symbol("~") else { return try parseOperand(expecting: what) }
        advance()
        try nest(token)
        defer { depth -= 1 }
        let operand = try parseUnary(expecting: "a value after '\(token.kind == .symbol("-") ? "-" : "~")'")
        if token.kind == .symbol("~") { return .function(.onesComplement, [operand]) }
        inspect(operand)
        switch operand {
        case .constant(.int(let i)) where i != Int64.min: return .constant(.int(-i))
        case .constant(.double(let d)): return .constant(.double(-d))
        default: return .function(.subtract, [.constant(.int(0)), operand])
        }
    }

    mutating func parseOperand(expecting what: String) throws(PredicateError) -> Expression {
        let token = current
        let base: Expression
        switch token.kind {
        case .word(let word):
            let upper = word.uppercased()
            let isCall = tokens[min(index + 1, tokens.count - 1)].kind == .symbol("(")
            let isSelector = tokens[min(index + 1, tokens.count - 1)].kind == .symbol(":")
            switch upper {
            case "SELF": advance(); base = .evaluatedObject
            case "NIL", "NULL": advance(); base = .constant(.null)
            case "TRUE", "YES": advance(); base = .constant(.bool(true))
            case "FALSE", "NO": advance(); base = .constant(.bool(false))
            case "SUBQUERY": base = try parseSubquery()
            case "CAST": base = try parseCast()
            case "FUNCTION" where isCall: base = try parseFunctionSelector()
            case "TERNARY" where isCall: base = try parseTernary()
            default:
                if isCall || isSelector, !PredicateLexer.isReserved(word) {
                    base = try parseCall()
                } else {
                    guard !PredicateLexer.isReserved(word) else { throw expected(what) }
                    advance()
                    base = .keyPath(word)
                }
            }
        case .escapedWord(let word):
            advance()
            base = .keyPath(word)
        case .string(let s): advance(); base = .constant(.string(s))
        case .integer(let i): advance(); base = .constant(.int(i))
        case .double(let d): advance(); base = .constant(.double(d))
        case .variable(let name): advance(); base = .variable(name)
        case .format(let specifier):
            advance()
            base = try argument(specifier, at: token)
        case .symbol("{"):
            base = try parseArray()
        case .symbol("("):
            advance()
            try nest(token)
            defer { depth -= 1 }
            let inner = try parseExpression(expecting: "an expression after '('")
            try expect(symbol: ")", "')' to close the '(' at offset \(offset(token))")
            base = inner
        case .at(let name):
            throw PredicateError.unsupported("@\(name) without a collection before it", offset: offset(token))
        default:
            throw expected(what)
        }
        return try parseTail(base)
    }

    /// `.key.path`, `.%K`, `.@count`, `.@sum.key`, `.@distinctUnionOfObjects.key`, `[index]`
    /// after an expression.
    mutating func parseTail(_ base: Expression) throws(PredicateError) -> Expression {
        var result = base
        // Each index and collection operator wraps the tree one level deeper, so each counts
        // toward the nesting limit until the tail ends (`x[0][0]…` nests as deep as it is long).
        let outer = depth
        defer { depth = outer }
        while true {
            if current.kind == .symbol("[") {
                try nest(current)
                result = .index(result, try parseSubscript())
                continue
            }
            guard current.kind == .symbol(".") else { return result }
            advance()
            let token = current
            let key: String
            switch token.kind {
            case .word(let w), .escapedWord(let w):
                if case .word = token.kind, PredicateLexer.isReserved(w) { throw expected("a key after '.'") }
                advance()
                key = w
            case .format(let specifier) where specifier == "%K" || specifier == "%@":
                advance()
                key = try keyArgument(specifier, at: token)
            case .at(let name):
                guard let function = AggregateFunction(rawValue: "@" + name) else {
                    throw PredicateError.unsupported("the collection operator @\(name)", offset: offset(token))
                }
                try nest(token)
                advance()
                if case .aggregate(let inner, _, _) = result, !inner.yieldsCollection {
                    throw PredicateError.unsupported("a collection operator after \(inner.rawValue)", offset: offset(token))
                }
                result = .aggregate(function, result, nil)
                if function == .count, current.kind == .symbol(".") { throw expected("an operator after @count") }
                continue
            default:
                throw expected("a key, %K or @count, @sum, @avg, @min, @max, @distinctUnionOfObjects, … after '.'")
            }
            switch result {
            case .keyPath(let path): result = .keyPath(path + "." + key)
            case .evaluatedObject: result = .keyPath(key)
            case .path(let inner, let path): result = .path(inner, path + "." + key)
            case .aggregate(let function, let collection, let existing):
                result = .aggregate(function, collection, existing.map { $0 + "." + key } ?? key)
            default: result = .path(result, key)
            }
        }
    }

    /// `[FIRST]`, `[LAST]`, `[SIZE]` or `[expression]`.
    mutating func parseSubscript() throws(PredicateError) -> IndexSubscript {
        let open = current
        advance()
        try nest(open)
        defer { depth -= 1 }
        let index: IndexSubscript
        if case .word(let w) = current.kind, ["FIRST", "LAST", "SIZE"].contains(w.uppercased()),
           tokens[min(self.index + 1, tokens.count - 1)].kind == .symbol("]") {
            advance()
            index = w.uppercased() == "FIRST" ? .first : w.uppercased() == "LAST" ? .last : .size
        } else {
            index = .position(try parseExpression(expecting: "FIRST, LAST, SIZE or an index after '['"))
        }
        try expect(symbol: "]", "']' to close the '[' at offset \(offset(open))")
        return index
    }

    mutating func parseArray() throws(PredicateError) -> Expression {
        let open = current
        advance()
        try nest(open)
        defer { depth -= 1 }
        var elements: [Expression] = []
        if take(symbol: "}") { return .array(elements) }
        while true {
            elements.append(try parseExpression(expecting: elements.isEmpty ? "a value or '}' after '{'" : "a value after ','"))
            if take(symbol: "}") { return .array(elements) }
            try expect(symbol: ",", "',' or '}' in the array")
        }
    }
}
