/// A `MATCHES` pattern ready to test strings: parsed, checked and compiled once.
///
/// The dialect is ICU's as `NSPredicate` uses it (see `docs/PREDICATES.md`), minus what
/// needs backtracking: a match takes time linear in the text, so no pattern can hold a
/// fetch for long. The whole string must match; matching is over Unicode scalars.
struct RegularExpression {
    private let matcher: RegexMatcher

    /// Compiles `pattern`; `caseInsensitive` is `MATCHES[c]` (as if it started with `(?i)`).
    init(_ pattern: String, caseInsensitive: Bool) throws(RegexSyntaxError) {
        var flags = RegexFlags()
        flags.caseInsensitive = caseInsensitive
        let node = try RegexParser.parse(pattern, flags: flags)
        matcher = RegexMatcher(program: try RegexCompiler.compile(node, pattern: pattern))
    }

    /// Whether the whole of `text` matches; nil when `shouldStop` said to stop first.
    func wholeMatch(_ text: String, shouldStop: (() -> Bool)? = nil) -> Bool? {
        matcher.matches(text, shouldStop: shouldStop)
    }
}
