/// Parses the ICU-style pattern of a `MATCHES` into a ``RegexNode`` (the dialect is in
/// `docs/PREDICATES.md`).
///
/// Only what runs in time linear in the text is accepted: backreferences, lookaround and
/// atomic groups are refused with the offset and the construct; so is a possessive
/// quantifier wherever it could change what matches (see ``checkPossessive``).
struct RegexParser {
    /// The deepest nesting of groups and classes accepted.
    static let maximumNesting = 200
    /// The largest count of a `{n,m}` accepted.
    static let maximumRepetition = 1000

    let pattern: [Unicode.Scalar]
    var index = 0
    var depth = 0

    init(_ pattern: String) {
        self.pattern = Array(pattern.unicodeScalars)
    }

    /// The pattern's tree, with `flags` in effect at its start.
    static func parse(_ pattern: String, flags: RegexFlags) throws(RegexSyntaxError) -> RegexNode {
        var parser = RegexParser(pattern)
        var flags = flags
        let node = try parser.parseAlternation(&flags)
        if parser.index < parser.pattern.count {
            throw RegexSyntaxError(offset: parser.index, reason: "unmatched ')'")
        }
        try checkPossessive(node, atEnd: true)
        return node
    }

    /// A possessive quantifier (`*+`, `++`, `?+`, `{n,m}+`) never gives back what it took,
    /// which a linear-time matcher cannot imitate in general. On one character at the very
    /// end of the pattern it matches what the greedy quantifier matches (a whole-string
    /// match must take the rest of the text anyway), so only there it is accepted.
    static func checkPossessive(_ node: RegexNode, atEnd: Bool) throws(RegexSyntaxError) {
        switch node {
        case .possessive(let inner, let offset):
            guard atEnd else { throw possessiveError(at: offset) }
            try checkPossessive(inner, atEnd: false)
        case .concatenation(let items):
            for (position, item) in items.enumerated() {
                let onlyZeroWidthAfter = items[(position + 1)...].allSatisfy { if case .assertion = $0 { true } else { false } }
                try checkPossessive(item, atEnd: atEnd && onlyZeroWidthAfter)
            }
        case .alternation(let branches):
            for branch in branches { try checkPossessive(branch, atEnd: atEnd) }
        case .repetition(let inner, _, _):
            try checkPossessive(inner, atEnd: false)
        case .empty, .scalar, .set, .assertion:
            break
        }
    }

    static func possessiveError(at offset: Int) -> RegexSyntaxError {
        RegexSyntaxError(offset: offset, reason: "a possessive quantifier can change what matches except on one character at the end of the pattern, and is not supported here (drop its '+')")
    }

    // MARK: - Reading

    var atEnd: Bool { index >= pattern.count }

    func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        index + ahead < pattern.count ? pattern[index + ahead] : nil
    }

    func peekIs(_ text: String) -> Bool {
        var i = index
        for scalar in text.unicodeScalars {
            guard i < pattern.count, pattern[i] == scalar else { return false }
            i += 1
        }
        return true
    }

    mutating func next() -> Unicode.Scalar? {
        guard index < pattern.count else { return nil }
        defer { index += 1 }
        return pattern[index]
    }

    func error(_ reason: String, at offset: Int? = nil) -> RegexSyntaxError {
        RegexSyntaxError(offset: offset ?? index, reason: reason)
    }

    mutating func enter() throws(RegexSyntaxError) {
        depth += 1
        if depth > Self.maximumNesting { throw error("groups and classes are nested more than \(Self.maximumNesting) levels deep") }
    }

    // MARK: - Structure

    /// Branches separated by `|`, up to a `)` or the end.
    mutating func parseAlternation(_ flags: inout RegexFlags) throws(RegexSyntaxError) -> RegexNode {
        var branches = [try parseConcatenation(&flags)]
        while peek() == "|" {
            index += 1
            branches.append(try parseConcatenation(&flags))
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseConcatenation(_ flags: inout RegexFlags) throws(RegexSyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let scalar = peek(), scalar != "|", scalar != ")" {
            let start = index
            guard var atom = try parseAtom(&flags) else { continue }
            while let quantified = try parseQuantifier(atom, atomStart: start) { atom = quantified }
            items.append(atom)
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concatenation(items)
        }
    }

    /// One atom; nil for what matches nothing and takes no quantifier (`(?i)`, `(?#…)`).
    private mutating func parseAtom(_ flags: inout RegexFlags) throws(RegexSyntaxError) -> RegexNode? {
        let start = index
        guard let scalar = next() else { return nil }
        switch scalar {
        case "(":
            return try parseGroup(&flags, start: start)
        case "[":
            return .set(try parseClass(flags), caseInsensitive: flags.caseInsensitive)
        case ".":
            return .set(flags.dotMatchesLineTerminators ? .anyScalar : .anyButLineTerminator, caseInsensitive: false)
        case "^":
            return .assertion(flags.multiline ? .startOfLine : .startOfText)
        case "$":
            return .assertion(flags.multiline ? .endOfLine : .endOfTextOrFinalLineTerminator)
        case "\\":
            return try parseEscape(flags, start: start)
        case "*", "+", "?":
            throw error("quantifier '\(scalar)' has nothing to repeat", at: start)
        case "{":
            throw error("'{' has nothing to repeat (write '\\{' for the character)", at: start)
        default:
            return .scalar(scalar, caseInsensitive: flags.caseInsensitive)
        }
    }

    /// After `(`: a group, an inline flag setting, a comment, or a refused construct.
    private mutating func parseGroup(_ flags: inout RegexFlags, start: Int) throws(RegexSyntaxError) -> RegexNode? {
        try enter()
        defer { depth -= 1 }
        var inner = flags
        if peek() == "?" {
            index += 1
            switch peek() {
            case ":":
                index += 1
            case "=", "!":
                throw error("lookahead '(?\(peek().map(String.init) ?? ""))' cannot be run in linear time and is not supported", at: start)
            case "<" where peek(1) == "=" || peek(1) == "!":
                throw error("lookbehind '(?<\(peek(1).map(String.init) ?? ""))' cannot be run in linear time and is not supported", at: start)
            case ">":
                throw error("atomic group '(?>' cannot be run in linear time and is not supported (use '(?:')", at: start)
            case "#":
                while let scalar = next(), scalar != ")" {}
                if pattern[index - 1] != ")" { throw error("comment '(?#' is not closed", at: start) }
                return nil
            case "<", "P":
                if peek() == "P" { index += 1; guard peek() == "<" else { throw error("expected '<' after '(?P'") } }
                index += 1
                let nameStart = index
                while let scalar = peek(), scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" { index += 1 }
                guard index > nameStart, next() == ">" else { throw error("a group name is letters and digits closed by '>'", at: nameStart) }
            default:
                let setsOnly = try parseFlags(&inner, start: start)
                if setsOnly {
                    flags = inner
                    return nil
                }
            }
        }
        let body = try parseAlternation(&inner)
        guard next() == ")" else { throw error("group opened at offset \(start) is not closed", at: start) }
        return body
    }

    /// `(?ims-ims)` or `(?ims-ims:`; returns true for the first (the flags hold on).
    private mutating func parseFlags(_ flags: inout RegexFlags, start: Int) throws(RegexSyntaxError) -> Bool {
        var on = true
        while let scalar = next() {
            switch scalar {
            case "i": flags.caseInsensitive = on
            case "s": flags.dotMatchesLineTerminators = on
            case "m": flags.multiline = on
            case "-" where on: on = false
            case ")": return true
            case ":": return false
            default:
                throw error("unknown or unsupported group or flag '(?\(String(String.UnicodeScalarView(pattern[(start + 2)..<index]))))' (flags: i, s, m)", at: start)
            }
        }
        throw error("group opened at offset \(start) is not closed", at: start)
    }

    /// A quantifier after `atom`, or nil when none follows.
    private mutating func parseQuantifier(_ atom: RegexNode, atomStart: Int) throws(RegexSyntaxError) -> RegexNode? {
        let start = index
        let bounds: (min: Int, max: Int?)
        switch peek() {
        case "*": index += 1; bounds = (0, nil)
        case "+": index += 1; bounds = (1, nil)
        case "?": index += 1; bounds = (0, 1)
        case "{": bounds = try parseInterval()
        default: return nil
        }
        if peek() == "?" {
            index += 1  // lazy: the same strings match a whole-string match
        } else if peek() == "+" {
            index += 1
            switch atom {
            case .set, .scalar: break
            default: throw Self.possessiveError(at: start)
            }
            return .possessive(.repetition(atom, min: bounds.min, max: bounds.max), offset: start)
        }
        if case .assertion = atom { return atom }  // a repeated zero-width test is the test
        return .repetition(atom, min: bounds.min, max: bounds.max)
    }

    /// `{n}`, `{n,}` or `{n,m}`.
    private mutating func parseInterval() throws(RegexSyntaxError) -> (min: Int, max: Int?) {
        let start = index
        index += 1
        let low = try parseCount(start: start)
        var high: Int? = low
        if peek() == "," {
            index += 1
            high = peek() == "}" ? nil : try parseCount(start: start)
        }
        guard next() == "}" else { throw error("a repetition is '{n}', '{n,}' or '{n,m}'", at: start) }
        if let high, high < low { throw error("the repetition {\(low),\(high)} has its maximum below its minimum", at: start) }
        return (low, high)
    }

    private mutating func parseCount(start: Int) throws(RegexSyntaxError) -> Int {
        var value = 0
        var digits = 0
        while let scalar = peek(), let digit = scalar.properties.numericType == .decimal && scalar.isASCII ? Int(scalar.value - 0x30) : nil {
            index += 1
            digits += 1
            value = value * 10 + digit
            if value > Self.maximumRepetition {
                throw error("a repetition count is at most \(Self.maximumRepetition)", at: start)
            }
        }
        guard digits > 0 else { throw error("a repetition is '{n}', '{n,}' or '{n,m}'", at: start) }
        return value
    }
}
