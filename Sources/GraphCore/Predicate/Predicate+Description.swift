import Foundation

// The canonical format string of a predicate: it parses back to an equal predicate.

extension Predicate {
    /// The canonical format string: `title BEGINSWITH[c] "blue" AND (plays > 10 OR rating == nil)`.
    public var description: String {
        switch self {
        case .constant(let b): return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let c): return c.description
        case .and(let parts): return Self.join(parts, " AND ", empty: "TRUEPREDICATE")
        case .or(let parts): return Self.join(parts, " OR ", empty: "FALSEPREDICATE")
        case .not(let p):
            switch p {
            case .and, .or: return "NOT (\(p))"
            default: return "NOT \(p)"
            }
        }
    }

    /// Parts of a compound predicate; nested compounds keep their parentheses, so the tree
    /// shape survives a round trip.
    private static func join(_ parts: [Predicate], _ separator: String, empty: String) -> String {
        if parts.isEmpty { return empty }
        if parts.count == 1 { return parts[0].description }
        return parts.map { part in
            switch part {
            case .and, .or: return "(\(part))"
            default: return part.description
            }
        }.joined(separator: separator)
    }
}

extension Comparison {
    /// `ANY composers.name ==[cd] "davis"`.
    public var description: String {
        var flags = ""
        if !options.isEmpty {
            flags = "[" + (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "") + "]"
        }
        let prefix = modifier == .direct ? "" : modifier.rawValue + " "
        return "\(prefix)\(left) \(op.rawValue)\(flags) \(right)"
    }
}

extension Expression {
    /// The expression in format-string syntax.
    public var description: String {
        switch self {
        case .constant(let value): return value.formatLiteral
        case .evaluatedObject: return "SELF"
        case .keyPath(let path): return path.isEmpty ? "SELF" : Self.escaped(path)
        case .path(let base, let path): return "\(Self.operand(base)).\(Self.escaped(path))"
        case .variable(let name): return "$" + name
        case .array(let elements): return "{" + elements.map(\.description).joined(separator: ", ") + "}"
        case .aggregate(let function, let base, let key):
            return "\(Self.operand(base)).\(function.rawValue)" + (key.map { "." + Self.escaped($0) } ?? "")
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(collection), $\(variable), \(predicate))"
        case .function(let function, let arguments):
            if let negated = negatedOperand { return "-" + Self.prefixOperand(negated) }
            if function.infixOperator != nil, arguments.count == 2 { return infixText(minimumLevel: 0) }
            if function == .onesComplement, arguments.count == 1 { return "~" + Self.prefixOperand(arguments[0]) }
            // `sqrt(x)`, `now()`, `modulus:by:(a, b)`: the call spelling that names the function.
            let selector = function.rawValue
            let name = selector.split(separator: ":").count > 1 || !selector.hasSuffix(":") ? selector : String(selector.dropLast())
            return name + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
        case .ternary(let condition, let whenTrue, let whenFalse):
            return "TERNARY(\(condition), \(whenTrue), \(whenFalse))"
        case .cast(let expression, let type):
            return "CAST(\(expression), \(Value.quoted(type)))"
        case .index(let collection, let index):
            let inner: String
            switch index {
            case .first: inner = "FIRST"
            case .last: inner = "LAST"
            case .size: inner = "SIZE"
            case .position(let position): inner = position.description
            }
            return "\(Self.operand(collection))[\(inner)]"
        }
    }

    /// An expression as the operand of a postfix operator (`.key`, `[i]`, `.@count`): a negative
    /// number, an infix operator's function and a prefix operator's keep parentheses around them.
    static func operand(_ expression: Expression) -> String {
        switch expression {
        case .constant(.int(let i)) where i < 0: return "(\(expression))"
        case .constant(.double(let d)) where d.sign == .minus: return "(\(expression))"
        case .function(let function, let arguments) where function.infixOperator != nil && arguments.count == 2:
            return "(\(expression))"
        case .function(.onesComplement, let arguments) where arguments.count == 1:
            return "(\(expression))"
        default: return expression.description
        }
    }

    /// An expression as the operand of a prefix operator (`-`, `~`): as after a postfix one,
    /// except that a prefix operator's function needs no parentheses (`--x`, `~-x`), so a chain
    /// of them prints as deep as the parser nests it.
    static func prefixOperand(_ expression: Expression) -> String {
        if expression.negatedOperand != nil { return expression.description }
        if case .function(.onesComplement, let arguments) = expression, arguments.count == 1 { return expression.description }
        return operand(expression)
    }

    /// `x` when this is `0 - x` that prints as `-x`, the way the parser reads a unary minus:
    /// one level of nesting, not the two of `0 - (x)`. Not when `x` is a number (the parser
    /// takes `-` and a number for a negative number) or its text starts with one (the lexer
    /// would join the two).
    var negatedOperand: Expression? {
        guard case .function(.subtract, let arguments) = self, arguments.count == 2, case .constant(.int(0)) = arguments[0] else {
            return nil
        }
        let operand = arguments[1]
        switch operand {
        case .constant(.int), .constant(.double): return nil
        default: break
        }
        return operand.printsLeadingNumber ? nil : operand
    }

    /// Whether the text of this expression as a prefix operator's operand starts with a
    /// number: a number's key, element or aggregate (`5.x`, `5[0]`), unparenthesized.
    private var printsLeadingNumber: Bool {
        switch self {
        case .path(let base, _), .index(let base, _), .aggregate(_, let base, _):
            switch base {
            case .constant(.int(let i)): return i >= 0
            case .constant(.double(let d)): return d.isFinite && d.sign == .plus
            case .path, .index, .aggregate: return base.printsLeadingNumber
            default: return false
            }
        default: return false
        }
    }

    /// The level of an infix operator, loosest first, as the parser reads them.
    static func infixLevel(_ function: BuiltinFunction) -> Int {
        switch function {
        case .bitwiseOr: return 0
        case .bitwiseAnd: return 1
        case .add, .subtract: return 2
        case .multiply, .divide: return 3
        default: return 4
        }
    }

    /// An operator's function with the parentheses its place needs and no more: operators
    /// are left-associative, so `a - b - c` prints flat (a long chain nests no parentheses)
    /// and `a - (b - c)` keeps them.
    func infixText(minimumLevel: Int) -> String {
        guard case .function(let function, let arguments) = self, let symbol = function.infixOperator, arguments.count == 2 else {
            return description
        }
        let level = Self.infixLevel(function)
        func side(_ expression: Expression, _ minimum: Int) -> String {
            if case .function(let inner, let innerArguments) = expression, inner.infixOperator != nil, innerArguments.count == 2,
               expression.negatedOperand == nil {
                return expression.infixText(minimumLevel: minimum)
            }
            return expression.description
        }
        let text = "\(side(arguments[0], level)) \(symbol) \(side(arguments[1], level + 1))"
        return level < minimumLevel ? "(\(text))" : text
    }

    /// A key path with reserved words escaped by `#` (a property named `in` is `#in`).
    static func escaped(_ path: String) -> String {
        guard path.split(separator: ".").contains(where: { PredicateLexer.isReserved($0) }) else { return path }
        return path.split(separator: ".", omittingEmptySubsequences: false)
            .map { PredicateLexer.isReserved($0) ? "#" + $0 : String($0) }
            .joined(separator: ".")
    }
}

extension Value {
    /// The value as a format-string literal: `42`, `4.5`, `"Blue"`, `nil`, `TRUE`, and
    /// `CAST("…", "type")` for values that have no literal (dates, UUIDs, object IDs, …).
    public var formatLiteral: String {
        switch self {
        case .null: return "nil"
        case .int(let i): return String(i)
        case .double(let d):
            if d.isNaN { return "CAST(\"NaN\", \"NSNumber\")" }
            if d.isInfinite { return d < 0 ? "CAST(\"-Infinity\", \"NSNumber\")" : "CAST(\"Infinity\", \"NSNumber\")" }
            return String(d)
        case .decimal(let d): return "CAST(\(Self.quoted(d.description)), \"NSDecimalNumber\")"
        case .string(let s): return Self.quoted(s)
        case .bool(let b): return b ? "TRUE" : "FALSE"
        case .date(let d): return "CAST(\(String(d.timeIntervalSinceReferenceDate)), \"NSDate\")"
        case .binary(let data): return "CAST(\(Self.quoted(data.base64EncodedString())), \"NSData\")"
        case .uuid(let u): return "CAST(\(Self.quoted(u.uuidString)), \"UUID\")"
        case .uri(let u): return "CAST(\(Self.quoted(u.absoluteString)), \"NSURL\")"
        case .object(let id): return "CAST(\(Self.quoted(id.uriRepresentation)), \"ObjectID\")"
        case .objects(let ids): return "{" + ids.map { Value.object($0).formatLiteral }.joined(separator: ", ") + "}"
        }
    }

    /// A double-quoted string literal with `\"`, `\\`, `\n`, `\r`, `\t` and `\uXXXX` escapes.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
