/// Escapes (`\d`, `\x{…}`, `\Q…\E`, …) and classes (`[…]`).
extension RegexParser {
    /// After `\` outside a class.
    mutating func parseEscape(_ flags: RegexFlags, start: Int) throws(RegexSyntaxError) -> RegexNode? {
        guard let scalar = peek() else { throw error("the pattern ends with a lone '\\'", at: start) }
        switch scalar {
        case "A", "G": index += 1; return .assertion(.startOfText)
        case "z": index += 1; return .assertion(.endOfText)
        case "Z": index += 1; return .assertion(.endOfTextOrFinalLineTerminator)
        case "b": index += 1; return .assertion(.wordBoundary)
        case "B": index += 1; return .assertion(.notWordBoundary)
        case "R":
            index += 1
            return .alternation([.concatenation([.scalar("\r", caseInsensitive: false), .scalar("\n", caseInsensitive: false)]),
                                 .set(.property(.lineTerminator), caseInsensitive: false)])
        case "Q":
            index += 1
            var literal: [RegexNode] = []
            while !atEnd && !peekIs("\\E") {
                if let scalar = next() { literal.append(.scalar(scalar, caseInsensitive: flags.caseInsensitive)) }
            }
            if peekIs("\\E") { index += 2 }
            return literal.isEmpty ? nil : .concatenation(literal)
        case "E":
            index += 1
            return nil  // a '\E' without '\Q' ends nothing
        case "1"..."9":
            throw error("backreference '\\\(scalar)' cannot be run in linear time and is not supported", at: start)
        case "k":
            throw error("backreference '\\k' cannot be run in linear time and is not supported", at: start)
        default:
            switch try parseEscapedMember(start: start) {
            case .scalar(let scalar): return .scalar(scalar, caseInsensitive: flags.caseInsensitive)
            case .set(let set): return .set(set, caseInsensitive: flags.caseInsensitive)
            }
        }
    }

    enum Member {
        case scalar(Unicode.Scalar)
        case set(ScalarSet)
    }

    /// An escape that stands for a scalar or a set, in or out of a class; `index` is just
    /// after the `\`.
    mutating func parseEscapedMember(start: Int) throws(RegexSyntaxError) -> Member {
        guard let scalar = next() else { throw error("the pattern ends with a lone '\\'", at: start) }
        switch scalar {
        case "d": return .set(.property(.decimalDigit))
        case "D": return .set(.inverted(.property(.decimalDigit)))
        case "w": return .set(.property(.word))
        case "W": return .set(.inverted(.property(.word)))
        case "s": return .set(.property(.whitespace))
        case "S": return .set(.inverted(.property(.whitespace)))
        case "h": return .set(.property(.horizontalWhitespace))
        case "H": return .set(.inverted(.property(.horizontalWhitespace)))
        case "v": return .set(.property(.lineTerminator))
        case "V": return .set(.inverted(.property(.lineTerminator)))
        case "p", "P": return .set(try parseProperty(negated: scalar == "P", start: start))
        case "t": return .scalar("\t")
        case "n": return .scalar("\n")
        case "r": return .scalar("\r")
        case "f": return .scalar("\u{0C}")
        case "a": return .scalar("\u{07}")
        case "e": return .scalar("\u{1B}")
        case "0": return .scalar(try parseOctal(start: start))
        case "c":
            guard let control = next(), control.isASCII else { throw error("'\\c' takes an ASCII character", at: start) }
            return .scalar(try self.scalar(control.value ^ 0x40, start: start))
        case "x":
            if peek() == "{" {
                index += 1
                let value = try parseHex(maximumDigits: 8, exactly: false, start: start)
                guard next() == "}" else { throw error("'\\x{' takes hex digits closed by '}'", at: start) }
                return .scalar(try self.scalar(value, start: start))
            }
            return .scalar(try self.scalar(try parseHex(maximumDigits: 2, exactly: true, start: start), start: start))
        case "u": return .scalar(try self.scalar(try parseHex(maximumDigits: 4, exactly: true, start: start), start: start))
        case "U": return .scalar(try self.scalar(try parseHex(maximumDigits: 8, exactly: true, start: start), start: start))
        case "N": throw error("named characters '\\N{…}' are not supported (write '\\x{…}')", at: start)
        default:
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                throw error("unknown escape '\\\(scalar)'", at: start)
            }
            return .scalar(scalar)
        }
    }

    private func scalar(_ value: UInt32, start: Int) throws(RegexSyntaxError) -> Unicode.Scalar {
        guard let scalar = Unicode.Scalar(value) else {
            throw error("\\x{\(String(value, radix: 16))} is not a Unicode scalar", at: start)
        }
        return scalar
    }

    private mutating func parseHex(maximumDigits: Int, exactly: Bool, start: Int) throws(RegexSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        var digits = 0
        while digits < maximumDigits, let scalar = peek(), let digit = Self.hexValue(scalar) {
            index += 1
            digits += 1
            value = value << 4 | digit
        }
        if digits == 0 || (exactly && digits < maximumDigits) {
            throw error("expected \(exactly ? "\(maximumDigits)" : "1 to \(maximumDigits)") hex digits", at: start)
        }
        if value > 0x10FFFF { throw error("\\x{\(String(value, radix: 16))} is beyond the last Unicode scalar", at: start) }
        return value
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: return scalar.value - 0x30
        case 0x41...0x46: return scalar.value - 0x41 + 10
        case 0x61...0x66: return scalar.value - 0x61 + 10
        default: return nil
        }
    }

    private mutating func parseOctal(start: Int) throws(RegexSyntaxError) -> Unicode.Scalar {
        var value: UInt32 = 0
        var digits = 0
        while digits < 3, let scalar = peek(), ("0"..."7").contains(scalar) {
            index += 1
            digits += 1
            value = value * 8 + (scalar.value - 0x30)
        }
        return try scalar(value, start: start)
    }

    /// After `\p` or `\P`: `{name}`, `{^name}` or a one-letter name.
    private mutating func parseProperty(negated: Bool, start: Int) throws(RegexSyntaxError) -> ScalarSet {
        var name = ""
        if peek() == "{" {
            index += 1
            while let scalar = next(), scalar != "}" { name.unicodeScalars.append(scalar) }
            guard index <= pattern.count, pattern[index - 1] == "}" else { throw error("'\\p{' is not closed by '}'", at: start) }
        } else if let scalar = next() {
            name.unicodeScalars.append(scalar)
        }
        var negated = negated
        if name.hasPrefix("^") {
            name.removeFirst()
            negated.toggle()
        }
        guard let property = ScalarProperty.named(name) else {
            throw error("unknown or unsupported property '\(String(name.prefix(40)))' (general categories such as L, Lu, Ll, N, Nd, P, S, Z, C; Alphabetic, Lowercase, Uppercase, White_Space, ASCII, Any)", at: start)
        }
        return negated ? .inverted(.property(property)) : .property(property)
    }

    // MARK: - Classes

    /// After `[`: the class up to its `]`, with `^`, ranges, nested classes, `&&` and `--`.
    mutating func parseClass(_ flags: RegexFlags) throws(RegexSyntaxError) -> ScalarSet {
        let start = index - 1
        try enter()
        defer { depth -= 1 }
        if peek() == ":", let posix = try parsePosix() { return posix }
        let negated = peek() == "^"
        if negated { index += 1 }
        var members: [ScalarSet] = []
        var singles: [ClosedRange<UInt32>] = []
        var first = true
        while true {
            guard let scalar = peek() else { throw error("class opened at offset \(start) is not closed by ']'", at: start) }
            if scalar == "]" && !first {
                index += 1
                break
            }
            first = false
            if peekIs("&&") || peekIs("--") {
                let intersect = scalar == "&"
                index += 2
                let left = Self.union(members, singles)
                let right = try parseClassRest(flags, start: start)
                let combined: ScalarSet = intersect ? .intersection([left, right]) : .difference(left, right)
                return negated ? .inverted(combined) : combined
            }
            switch try parseClassItem(flags, start: start) {
            case .set(let set): members.append(set)
            case .scalar(let low):
                if peek() == "-", let next = peek(1), next != "]", !peekIs("--") {
                    index += 1
                    let rangeStart = index
                    guard case .scalar(let highScalar) = try parseClassItem(flags, start: start) else {
                        throw error("a range ends with a single character, not a set", at: rangeStart)
                    }
                    guard low.value <= highScalar.value else {
                        throw error("the range \(low)-\(highScalar) runs backwards", at: rangeStart - 1)
                    }
                    singles.append(low.value...highScalar.value)
                } else {
                    singles.append(low.value...low.value)
                }
            }
        }
        let set = Self.union(members, singles)
        return negated ? .inverted(set) : set
    }

    /// The right side of `&&` or `--`: items up to the class's `]` (consumed).
    private mutating func parseClassRest(_ flags: RegexFlags, start: Int) throws(RegexSyntaxError) -> ScalarSet {
        var members: [ScalarSet] = []
        var singles: [ClosedRange<UInt32>] = []
        while true {
            guard let scalar = peek() else { throw error("class opened at offset \(start) is not closed by ']'", at: start) }
            if scalar == "]" {
                index += 1
                return Self.union(members, singles)
            }
            switch try parseClassItem(flags, start: start) {
            case .set(let set): members.append(set)
            case .scalar(let s): singles.append(s.value...s.value)
            }
        }
    }

    private mutating func parseClassItem(_ flags: RegexFlags, start: Int) throws(RegexSyntaxError) -> Member {
        let itemStart = index
        guard let scalar = next() else { throw error("class opened at offset \(start) is not closed by ']'", at: start) }
        switch scalar {
        case "[": return .set(try parseClass(flags))
        case "\\":
            if peek() == "Q" || peek() == "E" || peek() == "b" || peek() == "B" {
                throw error("'\\\(peek().map(String.init) ?? "")' is not supported inside a class", at: itemStart)
            }
            if let digit = peek(), ("1"..."9").contains(digit) { throw error("'\\\(digit)' is not valid inside a class", at: itemStart) }
            return try parseEscapedMember(start: itemStart)
        default: return .scalar(scalar)
        }
    }

    /// `[:name:]` (just after its `[`), or nil (and nothing consumed) when it is not one.
    private mutating func parsePosix() throws(RegexSyntaxError) -> ScalarSet? {
        let saved = index
        index += 1
        let negated = peek() == "^"
        if negated { index += 1 }
        var name = ""
        while let scalar = peek(), scalar.properties.isAlphabetic, scalar.isASCII { name.unicodeScalars.append(scalar); index += 1 }
        guard peekIs(":]") else {
            index = saved
            return nil
        }
        index += 2
        guard let set = ScalarProperty.posix(name) else { throw error("unknown POSIX class '[:\(name):]'", at: saved - 1) }
        return negated ? .inverted(set) : set
    }

    private static func union(_ members: [ScalarSet], _ singles: [ClosedRange<UInt32>]) -> ScalarSet {
        var all = members
        if !singles.isEmpty { all.insert(.ranges(singles), at: 0) }
        return all.count == 1 ? all[0] : .union(all)
    }
}
