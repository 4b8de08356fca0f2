import Foundation

/// One token of a predicate format string, with its offset (in UTF-8 bytes).
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        /// A bare word: a key or a keyword (keywords are matched case-insensitively).
        case word(String)
        /// `#word`: a key that would otherwise be a keyword.
        case escapedWord(String)
        case string(String)
        case integer(Int64)
        case double(Double)
        /// `$name`.
        case variable(String)
        /// A format specifier as written: `%@`, `%K`, `%d`, `%lu`, `%hhx`, `%Lg`, `%p`, ….
        case format(String)
        /// `@count`, `@sum`, ….
        case at(String)
        /// Punctuation and operators, as written: `==`, `=`, `<>`, `&&`, `(`, `.`, ….
        case symbol(String)
        case end
        /// Text the lexer could not read; the parser throws this error when it gets there,
        /// so an earlier syntax error is reported first.
        case invalid(PredicateError)
    }

    let kind: Kind
    let offset: Int

    /// How the token reads in an error message.
    var display: String {
        switch kind {
        case .word(let w): return "'\(w.prefix(40))'"
        case .escapedWord(let w): return "'#\(w.prefix(40))'"
        case .string(let s): return "the string \(Value.quoted(String(s.prefix(40))))"
        case .integer(let i): return "the number \(i)"
        case .double(let d): return "the number \(d)"
        case .variable(let v): return "'$\(v.prefix(40))'"
        case .format(let f): return "'\(f)'"
        case .at(let a): return "'@\(a.prefix(40))'"
        case .symbol(let s): return "'\(s)'"
        case .end: return "end of input"
        case .invalid: return "invalid text"
        }
    }
}

/// Splits a predicate format string into tokens.
struct PredicateLexer {
    private let bytes: [UInt8]
    private var position = 0
    /// The last token read: when it ends an operand (a key, a value, `)`), a `-` after it is a
    /// subtraction rather than the sign of a number.
    private var last: PredicateToken.Kind = .end

    /// The words of the language; a key with one of these names is written `#name`.
    static let reserved: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH",
        "ANY", "SOME", "ALL", "NONE", "SELF", "NIL", "NULL", "TRUE", "FALSE", "YES", "NO",
        "TRUEPREDICATE", "FALSEPREDICATE", "SUBQUERY", "CAST",
        "UTI-CONFORMS-TO", "UTI-EQUALS",
    ]

    /// Reserved words that are values, so a `-` after one is a subtraction.
    static let valueWords: Set<String> = ["SELF", "NIL", "NULL", "TRUE", "FALSE", "YES", "NO"]

    static func isReserved<S: StringProtocol>(_ word: S) -> Bool { reserved.contains(word.uppercased()) }

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The offset in characters of a byte offset, for error messages.
    static func characterOffset(_ byteOffset: Int, in bytes: [UInt8]) -> Int {
        String(decoding: bytes[0..<min(max(byteOffset, 0), bytes.count)], as: UTF8.self).count
    }

    private func error(_ expected: String, at offset: Int, found: String? = nil) -> PredicateError {
        let found = found ?? (offset < bytes.count ? "'\(String(decoding: bytes[offset...].prefix(while: { $0 != 0x20 }).prefix(20), as: UTF8.self))'" : "end of input")
        return .syntax(expected: expected, found: found, offset: Self.characterOffset(offset, in: bytes))
    }

    private func peek(_ ahead: Int = 0) -> UInt8? {
        position + ahead < bytes.count ? bytes[position + ahead] : nil
    }

    private static func isWordStart(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b >= 0x80
    }

    /// Whether `path` is names separated by dots (`album.title`), as a `%K` argument must be:
    /// each name starts with a letter or `_` and goes on with letters, digits and `_`.
    static func isKeyPath(_ path: String) -> Bool {
        var atStart = true
        for b in path.utf8 {
            if b == UInt8(ascii: ".") {
                if atStart { return false }
                atStart = true
            } else if atStart ? isWordStart(b) : isWordByte(b) {
                atStart = false
            } else {
                return false
            }
        }
        return !atStart
    }

    private static func isWordByte(_ b: UInt8) -> Bool { isWordStart(b) || isDigit(b) }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// All tokens, ending with `.end`, or with `.invalid` where the text cannot be read.
    mutating func tokens() -> [PredicateToken] {
        var result: [PredicateToken] = []
        while true {
            let start = position
            do {
                let token = try next()
                result.append(token)
                last = token.kind
                if token.kind == .end { return result }
            } catch {
                result.append(PredicateToken(kind: .invalid(error), offset: start))
                return result
            }
        }
    }

    private static func endsOperand(_ kind: PredicateToken.Kind) -> Bool {
        switch kind {
        case .word(let w): return !isReserved(w) || valueWords.contains(w.uppercased())
        case .escapedWord, .string, .integer, .double, .variable, .format, .at: return true
        case .symbol(let s): return s == ")" || s == "}" || s == "]"
        case .end, .invalid: return false
        }
    }

    private mutating func next() throws(PredicateError) -> PredicateToken {
        while let b = peek(), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { position += 1 }
        let start = position
        guard let b = peek() else { return PredicateToken(kind: .end, offset: start) }
        if Self.isWordStart(b) {
            let w = word()
            if w.count == 3, w.uppercased() == "UTI", let op = utiOperator() { return PredicateToken(kind: .word(op), offset: start) }
            return PredicateToken(kind: .word(w), offset: start)
        }
        if Self.isDigit(b) || (b == UInt8(ascii: "-") && peek(1).map(Self.isDigit) == true && !Self.endsOperand(last)) {
            return PredicateToken(kind: try number(), offset: start)
        }
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return PredicateToken(kind: .string(try string(quote: b)), offset: start)
        case UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "@"):
            position += 1
            guard let c = peek(), Self.isWordStart(c) else {
                let what = b == UInt8(ascii: "#") ? "a key after '#'" : b == UInt8(ascii: "$") ? "a variable name after '$'" : "a function name after '@'"
                throw error(what, at: position)
            }
            let name = word()
            let kind: PredicateToken.Kind = b == UInt8(ascii: "#") ? .escapedWord(name) : b == UInt8(ascii: "$") ? .variable(name) : .at(name)
            return PredicateToken(kind: kind, offset: start)
        case UInt8(ascii: "%"):
            return PredicateToken(kind: .format(try formatSpecifier()), offset: start)
        default:
            return PredicateToken(kind: .symbol(try symbol()), offset: start)
        }
    }

    private mutating func word() -> String {
        let start = position
        while let b = peek(), Self.isWordByte(b) { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// `-CONFORMS-TO` or `-EQUALS` after `UTI`: the operator as one word.
    private mutating func utiOperator() -> String? {
        for tail in ["-CONFORMS-TO", "-EQUALS"] {
            let utf8 = Array(tail.utf8)
            guard position + utf8.count <= bytes.count else { continue }
            let candidate = String(decoding: bytes[position..<position + utf8.count], as: UTF8.self)
            if candidate.uppercased() == tail, position + utf8.count == bytes.count || !Self.isWordByte(bytes[position + utf8.count]) {
                position += utf8.count
                return "UTI" + tail
            }
        }
        return nil
    }

    private mutating func symbol() throws(PredicateError) -> String {
        let two: [String] = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**"]
        if let b0 = peek(), let b1 = peek(1) {
            let pair = String(decoding: [b0, b1], as: UTF8.self)
            if two.contains(pair) {
                position += 2
                return pair
            }
        }
        guard let b = peek() else { throw error("a token", at: position) }
        let single = "=<>!(){}[],.+-*/&|^~:"
        let s = String(decoding: [b], as: UTF8.self)
        guard b < 0x80, single.contains(s) else {
            throw error("a key, a value or an operator", at: position)
        }
        position += 1
        return s
    }

    /// The length modifiers and conversions of NSString formatting that a predicate takes.
    static let lengthModifiers = ["hh", "ll", "h", "l", "q", "z", "t", "j", "L"]
    static let conversions: Set<UInt8> = Set("@KdiuoxXDUOeEfFgGaAcCsSp".utf8)

    /// `%`, an optional length modifier (`hh h l ll q z t j L`) and a conversion
    /// (`@ K d i u o x X D U O e E f F g G a A c C s S p`).
    private mutating func formatSpecifier() throws(PredicateError) -> String {
        let start = position
        position += 1
        // The common specifiers first, without building a string.
        if let c = peek(), c == UInt8(ascii: "@") || c == UInt8(ascii: "K") || c == UInt8(ascii: "d") {
            position += 1
            return c == UInt8(ascii: "@") ? "%@" : c == UInt8(ascii: "K") ? "%K" : "%d"
        }
        var length = ""
        for candidate in Self.lengthModifiers {
            let utf8 = candidate.utf8
            if position + utf8.count <= bytes.count, bytes[position..<position + utf8.count].elementsEqual(utf8) {
                position += utf8.count
                length = candidate
                break
            }
        }
        guard let conversion = peek(), Self.conversions.contains(conversion) else {
            throw error("a format specifier (%@, %K, %d, %i, %u, %x, %o, %f, %e, %g, %a, %c, %s, %p, with h, hh, l, ll, q, z, t, j or L)", at: start)
        }
        position += 1
        return "%" + length + String(UnicodeScalar(conversion))
    }

    private mutating func number() throws(PredicateError) -> PredicateToken.Kind {
        let start = position
        var negative = false
        if peek() == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        // 0x, 0o, 0b prefixes.
        if peek() == UInt8(ascii: "0"), let p = peek(1), let radix = [UInt8(ascii: "x"): 16, UInt8(ascii: "X"): 16,
                                                                        UInt8(ascii: "o"): 8, UInt8(ascii: "O"): 8,
                                                                        UInt8(ascii: "b"): 2, UInt8(ascii: "B"): 2][p] {
            position += 2
            let digitsStart = position
            while let b = peek(), Self.isWordByte(b) { position += 1 }
            let digits = String(decoding: bytes[digitsStart..<position], as: UTF8.self)
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            guard let magnitude = UInt64(digits, radix: radix) else {
                let valid = !digits.isEmpty && digits.allSatisfy { $0.hexDigitValue.map { $0 < radix } ?? false }
                let reason = digits.isEmpty ? "no digits" : valid ? "out of the 64-bit integer range" : "not a base-\(radix) number"
                throw PredicateError.invalidLiteral(text, reason: reason, offset: Self.characterOffset(start, in: bytes))
            }
            let value: Int64? = negative
                ? (magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil)
                : (magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil)
            guard let value else {
                throw PredicateError.invalidLiteral(text, reason: "out of the 64-bit integer range", offset: Self.characterOffset(start, in: bytes))
            }
            return .integer(value)
        }
        var isDouble = false
        while let b = peek(), Self.isDigit(b) { position += 1 }
        if peek() == UInt8(ascii: "."), let next = peek(1), Self.isDigit(next) {
            isDouble = true
            position += 1
            while let b = peek(), Self.isDigit(b) { position += 1 }
        }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            var ahead = 1
            if let sign = peek(1), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { ahead = 2 }
            if let digit = peek(ahead), Self.isDigit(digit) {
                isDouble = true
                position += ahead
                while let b = peek(), Self.isDigit(b) { position += 1 }
            }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if let b = peek(), Self.isWordByte(b) {
            throw error("an operator or the end after the number \(text)", at: position)
        }
        if !isDouble, let i = Int64(text) { return .integer(i) }
        guard let d = Double(text), d.isFinite else {
            throw PredicateError.invalidLiteral(text, reason: "out of range", offset: Self.characterOffset(start, in: bytes))
        }
        return .double(d)
    }

    private mutating func string(quote: UInt8) throws(PredicateError) -> String {
        let start = position
        position += 1
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flush(_ end: Int) {
            scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
        }
        while let b = peek() {
            if b == quote {
                flush(position)
                position += 1
                return String(scalars)
            }
            if b == UInt8(ascii: "\\") {
                flush(position)
                let escapeStart = position
                position += 1
                guard let e = peek() else { break }
                position += 1
                switch e {
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "0"): scalars.append("\0")
                case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"): scalars.append(Unicode.Scalar(e))
                case UInt8(ascii: "u"):
                    var code = try hex4(escapeStart)
                    if (0xD800...0xDBFF).contains(code), peek() == UInt8(ascii: "\\"), peek(1) == UInt8(ascii: "u") {
                        position += 2
                        let low = try hex4(escapeStart)
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw PredicateError.invalidLiteral("\\u escape", reason: "a high surrogate must be followed by a low one",
                                                                offset: Self.characterOffset(escapeStart, in: bytes))
                        }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else {
                        throw PredicateError.invalidLiteral("\\u escape", reason: "not a Unicode scalar value",
                                                            offset: Self.characterOffset(escapeStart, in: bytes))
                    }
                    scalars.append(scalar)
                default:
                    throw error("an escape (\\n, \\r, \\t, \\0, \\\\, \\\", \\', \\uXXXX)", at: escapeStart)
                }
                runStart = position
                continue
            }
            position += 1
        }
        throw error("a closing \(quote == UInt8(ascii: "\"") ? "\"" : "'") for the string at offset \(Self.characterOffset(start, in: bytes))",
                    at: bytes.count, found: "end of input")
    }

    private mutating func hex4(_ escapeStart: Int) throws(PredicateError) -> UInt32 {
        guard position + 4 <= bytes.count,
              let code = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
        else {
            throw error("four hex digits after \\u", at: position)
        }
        position += 4
        return code
    }
}
