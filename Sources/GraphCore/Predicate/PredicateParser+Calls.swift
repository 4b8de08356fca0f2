import Foundation

// Calls: SUBQUERY, CAST, TERNARY, FUNCTION and the built-in functions' call spellings.

extension PredicateParser {
    /// `SUBQUERY(collection, $variable, predicate)`.
    mutating func parseSubquery() throws(PredicateError) -> Expression {
        let keyword = current
        advance()
        try expect(symbol: "(", "'(' after SUBQUERY")
        try nest(keyword)
        defer { depth -= 1 }
        let collection = try parseExpression(expecting: "a collection key path in SUBQUERY")
        try expect(symbol: ",", "',' after the SUBQUERY collection")
        guard case .variable(let variable) = current.kind else { throw expected("a $variable in SUBQUERY") }
        advance()
        try expect(symbol: ",", "',' after the SUBQUERY variable")
        let predicate = try parseOr()
        try expect(symbol: ")", "')' to close SUBQUERY")
        return .subquery(collection, variable: variable, predicate)
    }

    /// `CAST(literal, "type")`: a constant of a type that has no literal of its own;
    /// `CAST(expression, "NSNumber" | "NSDate" | "NSString")`: a conversion when evaluating.
    mutating func parseCast() throws(PredicateError) -> Expression {
        let castToken = current
        advance()
        try expect(symbol: "(", "'(' after CAST")
        try nest(castToken)
        defer { depth -= 1 }
        let expression = try parseExpression(expecting: "a value to CAST")
        try expect(symbol: ",", "',' after the value in CAST")
        guard case .string(let type) = current.kind else { throw expected("a type name string in CAST") }
        advance()
        try expect(symbol: ")", "')' to close CAST")
        let at = offset(castToken)
        inspect(expression)
        let source: Value
        switch expression {
        case .constant(.string(let s)): source = .string(s)
        case .constant(.int(let i)): source = .int(i)
        case .constant(.double(let d)): source = .double(d)
        default:
            guard ["NSNumber", "NSDate", "NSString"].contains(type) else {
                throw PredicateError.invalidLiteral("CAST(\(expression), \"\(type)\")",
                                                    reason: "a value known only when evaluating casts to NSNumber, NSDate or NSString", offset: at)
            }
            return .cast(expression, type)
        }
        func invalid(_ reason: String) -> PredicateError {
            .invalidLiteral("CAST(\(source.formatLiteral), \"\(type)\")", reason: reason, offset: at)
        }
        switch (type, source) {
        case ("NSDate", .int(let i)), ("Date", .int(let i)): return .constant(.date(Date(timeIntervalSinceReferenceDate: Double(i))))
        case ("NSDate", .double(let d)), ("Date", .double(let d)): return .constant(.date(Date(timeIntervalSinceReferenceDate: d)))
        case ("NSDate", .string(let s)), ("Date", .string(let s)):
            guard let date = ISO8601.date(from: s) else { throw invalid("not an ISO 8601 date") }
            return .constant(.date(date))
        case ("NSNumber", .int), ("NSNumber", .double): return .constant(source)
        case ("NSNumber", .string(let s)):
            if let i = Int64(s) { return .constant(.int(i)) }
            if let d = Value.parse(text: s, as: .double) ?? Double(s).map(Value.double) { return .constant(d) }
            throw invalid("not a number")
        case ("NSDecimalNumber", .string(let s)), ("Decimal", .string(let s)):
            guard let value = Value.parse(text: s, as: .decimal) else { throw invalid("not a decimal number") }
            return .constant(value)
        case ("NSDecimalNumber", .int(let i)), ("Decimal", .int(let i)): return .constant(.decimal(Decimal(i)))
        case ("NSString", .int), ("NSString", .double), ("NSString", .string):
            if case .string = source { return .constant(source) }
            return .constant(.string(source.description))
        case ("UUID", .string(let s)), ("NSUUID", .string(let s)):
            guard let uuid = UUID(uuidString: s) else { throw invalid("not a UUID") }
            return .constant(.uuid(uuid))
        case ("NSURL", .string(let s)), ("URL", .string(let s)):
            guard let value = Value.parse(text: s, as: .uri) else { throw invalid("not an absolute URI") }
            return .constant(value)
        case ("NSData", .string(let s)), ("Data", .string(let s)):
            guard let data = Data(base64Encoded: s) else { throw invalid("not base64") }
            return .constant(.binary(data))
        case ("ObjectID", .string(let s)):
            guard let model else { throw invalid("an object ID needs the model: parse with Predicate(format:arguments:model:)") }
            do {
                return .constant(.object(try ObjectID(uri: s, model: model)))
            } catch {
                throw invalid(error.description)
            }
        default:
            throw invalid("the types are NSDate, NSNumber, NSDecimalNumber, NSString, UUID, NSURL, NSData, ObjectID")
        }
    }


    /// `name(arguments)` or `selector:parts:(arguments)`: a built-in function.
    mutating func parseCall() throws(PredicateError) -> Expression {
        let nameToken = current
        guard case .word(var name) = current.kind else { throw expected("a function name") }
        advance()
        while take(symbol: ":") {
            name += ":"
            if case .word(let part) = current.kind, tokens[min(index + 1, tokens.count - 1)].kind == .symbol(":") {
                name += part
                advance()
            }
        }
        let arguments = try parseArguments(of: name, at: nameToken)
        guard let function = BuiltinFunction(callName: name, arity: arguments.count) else {
            throw PredicateError.unsupported("the function \(name.prefix(40)) with \(arguments.count) argument\(arguments.count == 1 ? "" : "s")",
                                             offset: offset(nameToken))
        }
        return .function(function, arguments)
    }

    /// `(a, b, …)` after a function name.
    mutating func parseArguments(of name: String, at token: PredicateToken) throws(PredicateError) -> [Expression] {
        try expect(symbol: "(", "'(' after \(name.prefix(40))")
        try nest(token)
        defer { depth -= 1 }
        var arguments: [Expression] = []
        if take(symbol: ")") { return arguments }
        while true {
            arguments.append(try parseExpression(expecting: "an argument of \(name.prefix(40))"))
            if take(symbol: ")") { return arguments }
            try expect(symbol: ",", "',' or ')' after an argument of \(name.prefix(40))")
        }
    }

    /// `FUNCTION(receiver, 'selector', arguments…)` where the selector is a built-in's
    /// (`FUNCTION(plays, 'sqrt:')`) or maps to one (`FUNCTION(name, 'uppercaseString')`).
    mutating func parseFunctionSelector() throws(PredicateError) -> Expression {
        let token = current
        advance()
        let arguments = try parseArguments(of: "FUNCTION", at: token)
        guard arguments.count >= 2, case .constant(.string(let selector)) = arguments[1] else {
            throw PredicateError.syntax(expected: "FUNCTION(receiver, 'selector', arguments…)", found: "\(arguments.count) arguments",
                                        offset: offset(token))
        }
        let rest = [arguments[0]] + arguments.dropFirst(2)
        guard let function = BuiltinFunction.forSelector(selector, arguments: arguments.count - 2) else {
            throw PredicateError.unsupported("FUNCTION with the selector '\(selector.prefix(60))'", offset: offset(token))
        }
        return .function(function, rest)
    }

    /// `TERNARY(predicate, whenTrue, whenFalse)`.
    mutating func parseTernary() throws(PredicateError) -> Expression {
        let token = current
        advance()
        try expect(symbol: "(", "'(' after TERNARY")
        try nest(token)
        defer { depth -= 1 }
        let condition = try parseOr()
        try expect(symbol: ",", "',' after the TERNARY condition")
        let whenTrue = try parseExpression(expecting: "a value after the TERNARY condition")
        try expect(symbol: ",", "',' after the TERNARY value")
        let whenFalse = try parseExpression(expecting: "a value after ','")
        try expect(symbol: ")", "')' to close TERNARY")
        return .ternary(condition, whenTrue, whenFalse)
    }
}
