/// Why a predicate could not be parsed, bound or compiled against an entity.
///
/// Syntax errors name the offset in the format string (in characters, from 0) and what
/// was expected there:
///
/// ```swift
/// do { _ = try Predicate(format: "plays > 10 AND title ==") }
/// catch { print(error) }   // expected a value after '==' at offset 23, found end of input
/// ```
public enum PredicateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The format string is not valid at `offset`: `expected` says what would be, `found` what is there.
    case syntax(expected: String, found: String, offset: Int)
    /// Parentheses, `NOT`s, arrays or subqueries are nested deeper than `limit`.
    case nestingTooDeep(limit: Int, offset: Int)
    /// A format specifier (`%@`, `%K`, `%d`, …) has no argument left to take.
    case missingArgument(specifier: String, offset: Int)
    /// The argument of a format specifier is not of the kind it takes.
    case wrongArgument(specifier: String, offset: Int, expected: String, got: String)
    /// More arguments were given than the format string uses.
    case unusedArguments(used: Int, given: Int)
    /// A construct of the NSPredicate language that GraphCore does not implement.
    case unsupported(String, offset: Int)
    /// A literal that cannot be read: a bad escape, a `CAST` of a malformed value.
    case invalidLiteral(String, reason: String, offset: Int)
    /// A `$variable` with no value: bind it with ``Predicate/withSubstitutionVariables(_:)``.
    case unboundVariable(String)
    /// A key path names a property the entity does not have.
    case unknownKey(entity: String, key: String)
    /// Values of a kind the operator or property cannot take: `subject` says which
    /// (`Song.plays`, `BEGINSWITH`, `@sum`).
    case typeMismatch(subject: String, expected: String, got: String)
    /// The pattern of a `MATCHES` is not a valid regular expression.
    case invalidRegularExpression(pattern: String, reason: String)
    /// An expression cannot be computed: `expression` is its text, `reason` why (division by zero).
    case arithmetic(expression: String, reason: String)

    /// The offset in the format string the error points at, when it has one.
    public var offset: Int? {
        switch self {
        case .syntax(_, _, let offset), .nestingTooDeep(_, let offset), .missingArgument(_, let offset),
            .wrongArgument(_, let offset, _, _), .unsupported(_, let offset), .invalidLiteral(_, _, let offset):
            return offset
        default:
            return nil
        }
    }

    /// A message a user can act on.
    public var description: String {
        switch self {
        case .syntax(let expected, let found, let offset):
            return "expected \(expected) at offset \(offset), found \(found)"
        case .nestingTooDeep(let limit, let offset):
            return "the predicate is nested more than \(limit) levels deep at offset \(offset)"
        case .missingArgument(let specifier, let offset):
            return "\(specifier) at offset \(offset) has no argument"
        case .wrongArgument(let specifier, let offset, let expected, let got):
            return "\(specifier) at offset \(offset) takes \(expected), not \(got)"
        case .unusedArguments(let used, let given):
            return "\(given) arguments were given but the format uses \(used)"
        case .unsupported(let what, let offset):
            return "\(what) at offset \(offset) is not supported"
        case .invalidLiteral(let literal, let reason, let offset):
            return "\(literal.prefix(100)) at offset \(offset) is not valid: \(reason)"
        case .unboundVariable(let name):
            return "variable $\(name) has no value: bind it with withSubstitutionVariables"
        case .unknownKey(let entity, let key):
            return "entity '\(entity)' has no property '\(key)'"
        case .typeMismatch(let subject, let expected, let got):
            return "\(subject) takes \(expected), not \(got)"
        case .invalidRegularExpression(let pattern, let reason):
            return "'\(pattern.prefix(100))' is not a valid regular expression: \(reason)"
        case .arithmetic(let expression, let reason):
            return "\(expression.prefix(100)) cannot be computed: \(reason)"
        }
    }
}
