import Foundation

/// A condition on objects, in the NSPredicate format-string language or built in code.
///
/// Parsed from a format string:
///
/// ```swift
/// let p = try Predicate(format: "title BEGINSWITH[c] %@ AND (plays > %d OR album.artist.name == $who)", "blue", 10)
/// let bound = try p.withSubstitutionVariables(["who": "Miles Davis"])
/// ```
///
/// or built in code:
///
/// ```swift
/// let p: Predicate = .key("plays") > 10 && .key("album.title") == "Blue"
/// ```
///
/// The value is a plain tree (an AST) that a store can translate into its own query; the
/// in-memory evaluator (``PredicateEvaluator``) serves every store by default.
/// ``description`` prints the canonical format string, which parses back to an equal
/// predicate. The language is described in `docs/PREDICATES.md`.
public indirect enum Predicate: Sendable, Hashable, CustomStringConvertible {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    /// A comparison of two expressions: `plays > 10`, `ANY composers.name ==[c] "davis"`.
    case comparison(Comparison)
    /// All of the parts hold (`AND`, `&&`); true when there are none.
    case and([Predicate])
    /// At least one of the parts holds (`OR`, `||`); false when there are none.
    case or([Predicate])
    /// The part does not hold (`NOT`, `!`).
    case not(Predicate)

    /// `TRUEPREDICATE`: every object matches.
    public static let `true` = Predicate.constant(true)
    /// `FALSEPREDICATE`: no object matches.
    public static let `false` = Predicate.constant(false)

    /// A key path expression, so that a chain starting where a predicate is expected reads
    /// naturally: `request.predicate = .key("title").beginsWith("Blue")`.
    public static func key(_ path: String) -> Expression { .keyPath(path) }

    /// Both predicates hold.
    public static func && (lhs: Predicate, rhs: Predicate) -> Predicate { .and([lhs, rhs]) }
    /// Either predicate holds.
    public static func || (lhs: Predicate, rhs: Predicate) -> Predicate { .or([lhs, rhs]) }
    /// The predicate does not hold.
    public static prefix func ! (operand: Predicate) -> Predicate { .not(operand) }
}

/// A comparison of two expressions, with an operator, string options and a modifier for
/// collections (`ANY`, `ALL`, `NONE`).
public struct Comparison: Sendable, Hashable, CustomStringConvertible {
    /// The operator of a comparison.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        /// `==` or `=`.
        case equal = "=="
        /// `!=` or `<>`.
        case notEqual = "!="
        /// `<`.
        case lessThan = "<"
        /// `<=` or `=<`.
        case lessThanOrEqual = "<="
        /// `>`.
        case greaterThan = ">"
        /// `>=` or `=>`.
        case greaterThanOrEqual = ">="
        /// `BEGINSWITH`: the left string starts with the right one.
        case beginsWith = "BEGINSWITH"
        /// `ENDSWITH`: the left string ends with the right one.
        case endsWith = "ENDSWITH"
        /// `CONTAINS`: the left string contains the right one, or the left collection holds the right value.
        case contains = "CONTAINS"
        /// `LIKE`: the left string matches a pattern where `*` is any run of characters and `?` one character.
        case like = "LIKE"
        /// `MATCHES`: the whole left string matches a regular expression (ICU syntax, as `NSRegularExpression`).
        case matches = "MATCHES"
        /// `IN`: the left value is in the right collection, or the left string is part of the right one.
        case `in` = "IN"
        /// `BETWEEN`: the left value lies within the right `{low, high}` (both included).
        case between = "BETWEEN"
        /// `UTI-CONFORMS-TO`: the left uniform type identifier conforms to the right one
        /// (`"public.jpeg" UTI-CONFORMS-TO "public.image"`), in the tree of `public.*`
        /// types described in `docs/PREDICATES.md`.
        case utiConformsTo = "UTI-CONFORMS-TO"
        /// `UTI-EQUALS`: the two uniform type identifiers are the same (compared as
        /// identifiers: ASCII case is ignored).
        case utiEquals = "UTI-EQUALS"
    }

    /// `[c]` and `[d]`: compare strings ignoring case and/or diacritics.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: UInt8
        /// Options from raw bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// `[c]`: ignore case (`"A" ==[c] "a"`), with full Unicode case folding (`"ß" ==[c] "SS"`).
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: ignore diacritics (`"é" ==[d] "e"`).
        public static let diacriticInsensitive = Options(rawValue: 2)
    }

    /// How the left side of a comparison is read when it is a collection.
    public enum Modifier: String, Sendable, Hashable, CaseIterable {
        /// No modifier: the left side is compared as it is (see `docs/PREDICATES.md` for
        /// collections on the left).
        case direct = ""
        /// `ANY` / `SOME`: at least one element of the left collection satisfies the comparison.
        case any = "ANY"
        /// `ALL`: every element satisfies it (true for an empty collection).
        case all = "ALL"
        /// `NONE`: no element satisfies it (true for an empty collection).
        case none = "NONE"
    }

    /// The left expression.
    public var left: Expression
    /// The operator.
    public var op: Operator
    /// The right expression.
    public var right: Expression
    /// Case and diacritic options for string comparisons.
    public var options: Options
    /// How a collection on the left is read.
    public var modifier: Modifier

    /// A comparison `left op right`.
    public init(_ left: Expression, _ op: Operator, _ right: Expression, options: Options = [],
                modifier: Modifier = .direct) {
        self.left = left
        self.op = op
        self.right = right
        self.options = options
        self.modifier = modifier
    }
}
