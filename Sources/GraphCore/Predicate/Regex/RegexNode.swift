/// A parsed `MATCHES` pattern: what ``RegexParser`` produces and ``RegexCompiler`` turns
/// into a ``RegexProgram``. Groups leave no node of their own (a whole-string match needs no
/// captures); flags are already applied to the scalars and sets they govern.
indirect enum RegexNode: Equatable {
    /// Matches the empty string.
    case empty
    /// One scalar; `caseInsensitive` compares simple case foldings.
    case scalar(Unicode.Scalar, caseInsensitive: Bool)
    /// One scalar of a set (a class, `\d`, `\p{L}`, `.`).
    case set(ScalarSet, caseInsensitive: Bool)
    /// A zero-width test of the position.
    case assertion(RegexAssertion)
    /// The parts one after another.
    case concatenation([RegexNode])
    /// One of the branches.
    case alternation([RegexNode])
    /// The node `min` to `max` times (nil: no upper bound).
    case repetition(RegexNode, min: Int, max: Int?)
    /// A repetition written with a possessive quantifier (at `offset`); it matches as the
    /// repetition where ``RegexParser/checkPossessive(_:atEnd:)`` lets it stand.
    case possessive(RegexNode, offset: Int)
}

/// The zero-width tests of the dialect.
enum RegexAssertion: Equatable {
    /// `\A`, `\G`, `^` without `(?m)`: the start of the text.
    case startOfText
    /// `\z`: the end of the text.
    case endOfText
    /// `\Z`, `$` without `(?m)`: the end, or before a line terminator that ends the text.
    case endOfTextOrFinalLineTerminator
    /// `^` with `(?m)`: the start, or after a line terminator that does not end the text.
    case startOfLine
    /// `$` with `(?m)`: the end, or before a line terminator.
    case endOfLine
    /// `\b`: between a word scalar and a non-word one (or an end).
    case wordBoundary
    /// `\B`: not at a word boundary.
    case notWordBoundary
}

/// The inline flags in effect at a point of the pattern: `(?i)`, `(?s)`, `(?m)`.
struct RegexFlags: Equatable {
    /// `i` (and `MATCHES[c]`): compare by simple case folding.
    var caseInsensitive = false
    /// `s`: `.` matches line terminators too.
    var dotMatchesLineTerminators = false
    /// `m`: `^` and `$` match at line starts and ends.
    var multiline = false
}
