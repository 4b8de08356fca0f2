import Foundation

// Expressions: literals, key paths, SELF, variables, format arguments, arrays, SUBQUERY, CAST,
// and the `.key` / `.@function` tails that follow them.

extension PredicateParser {
    mutating func parseExpression(expecting what: String) throws(PredicateError) -> Expression {
        let token = current
        let base: Expression
        switch token.kind {
        case .word(let word):
            switch word.uppercased() {
            case "SELF": advance(); base = .evaluatedObject
            case "NIL", "NULL": advance(); return .constant(.null)
            case "TRUE", "YES": advance(); return .constant(.bool(true))
            case "FALSE", "NO": advance(); return .constant(.bool(false))
            case "SUBQUERY": base = try parseSubquery()
            case "CAST": return try parseCast()
            case "FUNCTION" where index + 1 < tokens.count && tokens[index + 1].kind == .symbol("("):
                throw PredicateError.unsupported("FUNCTION", offset: offset(token))
            default:
                guard !PredicateLexer.isReserved(word) else { throw expected(what) }
                advance()
                base = .keyPath(word)
            }
        case .escapedWord(let word):
            advance()
            base = .keyPath(word)
        case .string(let s): advance(); return .constant(.string(s))
        case .integer(let i): advance(); return .constant(.int(i))
        case .double(let d): advance(); return .constant(.double(d))
        case .variable(let name): advance(); base = .variable(name)
        case .format(let specifier):
            advance()
            base = try argument(specifier, at: token)
        case .symbol("{"):
            return try parseArray()
        case .at(let name):
            throw PredicateError.unsupported("@\(name) without a collection before it", offset: offset(token))
        default:
            throw expected(what)
        }
        return try parseTail(base)
    }

    /// `.key.path`, `.@count`, `.@sum.key` after an expression.
    mutating func parseTail(_ base: Expression) throws(PredicateError) -> Expression {
        var result = base
        while current.kind == .symbol(".") {
            advance()
            let token = current
            switch token.kind {
            case .word(let w), .escapedWord(let w):
                if case .word = token.kind, PredicateLexer.isReserved(w) { throw expected("a key after '.'") }
                advance()
                switch result {
                case .keyPath(let path): result = .keyPath(path + "." + w)
                case .evaluatedObject: result = .keyPath(w)
                case .path(let inner, let path): result = .path(inner, path + "." + w)
                case .aggregate(let function, let collection, let key):
                    result = .aggregate(function, collection, key.map { $0 + "." + w } ?? w)
                default: result = .path(result, w)
                }
            case .at(let name):
                guard let function = AggregateFunction(rawValue: "@" + name) else {
                    throw PredicateError.unsupported("the collection operator @\(name)", offset: offset(token))
                }
                advance()
                if case .aggregate = result {
                    throw PredicateError.unsupported("a collection operator after another", offset: offset(token))
                }
                result = .aggregate(function, result, nil)
                if function == .count, current.kind == .symbol(".") { throw expected("an operator after @count") }
            default:
                throw expected("a key or @count, @sum, @avg, @min, @max after '.'")
            }
        }
        return result
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

    /// `CAST(literal, "type")`: a constant of a type that has no literal of its own.
    mutating func parseCast() throws(PredicateError) -> Expression {
        let castToken = current
        advance()
        try expect(symbol: "(", "'(' after CAST")
        let literalToken = current
        let source: Value
        switch literalToken.kind {
        case .string(let s): source = .string(s)
        case .integer(let i): source = .int(i)
        case .double(let d): source = .double(d)
        default: throw expected("a string or number to CAST")
        }
        advance()
        try expect(symbol: ",", "',' after the value in CAST")
        guard case .string(let type) = current.kind else { throw expected("a type name string in CAST") }
        advance()
        try expect(symbol: ")", "')' to close CAST")
        let at = offset(castToken)
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

    /// The expression a format specifier stands for, taking the next argument.
    mutating func argument(_ specifier: String, at token: PredicateToken) throws(PredicateError) -> Expression {
        guard argumentIndex < arguments.count else {
            throw PredicateError.missingArgument(specifier: specifier, offset: offset(token))
        }
        let argument = arguments[argumentIndex]
        argumentIndex += 1
        func wrong(_ expected: String) -> PredicateError {
            .wrongArgument(specifier: specifier, offset: offset(token), expected: expected, got: argument.kindName)
        }
        switch (specifier, argument) {
        case ("%@", _): return Self.expression(argument)
        case ("%K", .value(.string(let path))):
            guard !path.isEmpty else { throw wrong("a non-empty key path") }
            return .keyPath(path)
        case ("%K", _): throw wrong("a key path string")
        case ("%d", .value(.int)), ("%i", .value(.int)), ("%ld", .value(.int)), ("%lld", .value(.int)):
            return Self.expression(argument)
        case ("%d", .value(.bool(let b))), ("%i", .value(.bool(let b))), ("%ld", .value(.bool(let b))), ("%lld", .value(.bool(let b))):
            return .constant(.int(b ? 1 : 0))
        case ("%d", _), ("%i", _), ("%ld", _), ("%lld", _): throw wrong("an integer")
        case ("%f", .value(.double)), ("%lf", .value(.double)): return Self.expression(argument)
        case ("%f", .value(.int(let i))), ("%lf", .value(.int(let i))): return .constant(.double(Double(i)))
        case ("%f", _), ("%lf", _): throw wrong("a number")
        case ("%s", .value(.string)): return Self.expression(argument)
        default: throw wrong("a string")
        }
    }

    static func expression(_ argument: PredicateValue) -> Expression {
        switch argument {
        case .value(let value): return .constant(value)
        case .array(let elements): return .array(elements.map(expression))
        }
    }
}

extension Predicate {
    /// Parses a format string; `%@`, `%K`, `%d`, … take the arguments in order.
    ///
    /// ```swift
    /// let p = try Predicate(format: "album.title == %@ AND plays > %d", arguments: ["Blue Train", 10])
    /// ```
    ///
    /// Give a `model` to read object IDs written as `CAST("graph://…", "ObjectID")` (as
    /// ``description`` prints them).
    ///
    /// - Throws: ``PredicateError`` naming the offset and what was expected there.
    public init(format: String, arguments: [PredicateValue], model: ObjectModel? = nil) throws(PredicateError) {
        var parser = PredicateParser(format: format, arguments: arguments, model: model)
        self = try parser.parse()
    }

    /// Parses a format string with Swift values as arguments.
    ///
    /// ```swift
    /// let p = try Predicate(format: "title BEGINSWITH[c] %@ AND plays > %d", "blue", 10)
    /// ```
    ///
    /// - Throws: ``PredicateError`` naming the offset and what was expected there.
    public init(format: String, _ arguments: any PredicateArgument...) throws(PredicateError) {
        try self.init(format: format, arguments: arguments.map(\.predicateValue))
    }

    /// Parses a format string, as ``init(format:_:)``, where the type is known from context.
    ///
    /// Foundation has a `Predicate` type of its own, so a file that imports both Foundation and
    /// GraphCore must write `GraphCore.Predicate(format: …)`; this spelling needs no type name:
    ///
    /// ```swift
    /// request.predicate = try .format("title BEGINSWITH[c] %@ AND plays > %d", "blue", 10)
    /// ```
    ///
    /// - Throws: ``PredicateError`` naming the offset and what was expected there.
    public static func format(_ format: String, _ arguments: any PredicateArgument...) throws(PredicateError) -> Predicate {
        try Predicate(format: format, arguments: arguments.map(\.predicateValue))
    }
}
