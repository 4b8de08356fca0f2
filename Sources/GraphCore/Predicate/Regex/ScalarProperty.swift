/// A property a scalar has or not: the sets behind `\d`, `\w`, `\s`, `\p{…}` and POSIX
/// classes such as `[:alpha:]`.
enum ScalarProperty: Equatable, Sendable {
    case any
    case ascii
    /// One of the general categories (`\p{L}` is the five letter categories).
    case categories([Unicode.GeneralCategory])
    /// `\d`: decimal digits (general category Nd).
    case decimalDigit
    /// `\w`: letters, marks, decimal digits, connector punctuation, ZWNJ and ZWJ.
    case word
    /// `\s`: Unicode white space.
    case whitespace
    /// `\h`: horizontal white space (space separators and tab).
    case horizontalWhitespace
    /// `\n \v \f \r`, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR.
    case lineTerminator
    case alphabetic
    case lowercase
    case uppercase
    case hexDigit

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        switch self {
        case .any:
            return true
        case .ascii:
            return scalar.value < 0x80
        case .categories(let categories):
            return categories.contains(properties.generalCategory)
        case .decimalDigit:
            return properties.generalCategory == .decimalNumber
        case .word:
            if scalar.value < 0x80 {
                let v = scalar.value
                return (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A) || v == 0x5F
            }
            if scalar.value == 0x200C || scalar.value == 0x200D || properties.isAlphabetic { return true }
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation: return true
            default: return false
            }
        case .whitespace:
            return properties.isWhitespace
        case .horizontalWhitespace:
            return scalar.value == 0x09 || properties.generalCategory == .spaceSeparator
        case .lineTerminator:
            return Self.isLineTerminator(scalar.value)
        case .alphabetic:
            return properties.isAlphabetic
        case .lowercase:
            return properties.isLowercase
        case .uppercase:
            return properties.isUppercase
        case .hexDigit:
            let v = scalar.value
            return (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x46) || (v >= 0x61 && v <= 0x66)
        }
    }

    @inline(__always)
    static func isLineTerminator(_ value: UInt32) -> Bool {
        (value >= 0x0A && value <= 0x0D) || value == 0x85 || value == 0x2028 || value == 0x2029
    }

    /// The property a `\p{name}` names: a general category by its short or long name
    /// (`L`, `Lu`, `Letter`, `Uppercase_Letter`, `gc=Lu`), or `Alphabetic`, `Lowercase`,
    /// `Uppercase`, `White_Space`, `Any`, `ASCII`. Case, spaces, `_` and `-` are ignored.
    static func named(_ name: String) -> ScalarProperty? {
        var key = String(name.lowercased().filter { $0 != " " && $0 != "_" && $0 != "-" })
        for prefix in ["gc=", "generalcategory="] where key.hasPrefix(prefix) { key.removeFirst(prefix.count) }
        if let categories = categoryNames[key] { return .categories(categories) }
        switch key {
        case "any": return .any
        case "ascii": return .ascii
        case "alphabetic", "alpha": return .alphabetic
        case "lowercase", "lower": return .lowercase
        case "uppercase", "upper": return .uppercase
        case "whitespace", "space", "wspace": return .whitespace
        default: return nil
        }
    }

    /// The POSIX class a `[:name:]` names.
    static func posix(_ name: String) -> ScalarSet? {
        switch name {
        case "alpha": return .property(.alphabetic)
        case "digit": return .property(.decimalDigit)
        case "alnum": return .union([.property(.alphabetic), .property(.decimalDigit)])
        case "upper": return .property(.uppercase)
        case "lower": return .property(.lowercase)
        case "space": return .property(.whitespace)
        case "blank": return .property(.horizontalWhitespace)
        case "punct": return .property(.categories(punctuation))
        case "xdigit": return .property(.hexDigit)
        case "word": return .property(.word)
        case "cntrl": return .property(.categories([.control]))
        default: return nil
        }
    }

    private static let letters: [Unicode.GeneralCategory] = [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter]
    private static let marks: [Unicode.GeneralCategory] = [.nonspacingMark, .spacingMark, .enclosingMark]
    private static let numbers: [Unicode.GeneralCategory] = [.decimalNumber, .letterNumber, .otherNumber]
    private static let punctuation: [Unicode.GeneralCategory] = [.connectorPunctuation, .dashPunctuation, .openPunctuation,
                                                                 .closePunctuation, .initialPunctuation, .finalPunctuation, .otherPunctuation]
    private static let symbols: [Unicode.GeneralCategory] = [.mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol]
    private static let separators: [Unicode.GeneralCategory] = [.spaceSeparator, .lineSeparator, .paragraphSeparator]
    private static let others: [Unicode.GeneralCategory] = [.control, .format, .surrogate, .privateUse, .unassigned]

    private static let categoryNames: [String: [Unicode.GeneralCategory]] = [
        "l": letters, "letter": letters,
        "lu": [.uppercaseLetter], "uppercaseletter": [.uppercaseLetter],
        "ll": [.lowercaseLetter], "lowercaseletter": [.lowercaseLetter],
        "lt": [.titlecaseLetter], "titlecaseletter": [.titlecaseLetter],
        "lc": [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter], "l&": [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter],
        "casedletter": [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter],
        "lm": [.modifierLetter], "modifierletter": [.modifierLetter],
        "lo": [.otherLetter], "otherletter": [.otherLetter],
        "m": marks, "mark": marks, "combiningmark": marks,
        "mn": [.nonspacingMark], "nonspacingmark": [.nonspacingMark],
        "mc": [.spacingMark], "spacingmark": [.spacingMark],
        "me": [.enclosingMark], "enclosingmark": [.enclosingMark],
        "n": numbers, "number": numbers,
        "nd": [.decimalNumber], "decimalnumber": [.decimalNumber], "digit": [.decimalNumber],
        "nl": [.letterNumber], "letternumber": [.letterNumber],
        "no": [.otherNumber], "othernumber": [.otherNumber],
        "p": punctuation, "punctuation": punctuation, "punct": punctuation,
        "pc": [.connectorPunctuation], "connectorpunctuation": [.connectorPunctuation],
        "pd": [.dashPunctuation], "dashpunctuation": [.dashPunctuation],
        "ps": [.openPunctuation], "openpunctuation": [.openPunctuation],
        "pe": [.closePunctuation], "closepunctuation": [.closePunctuation],
        "pi": [.initialPunctuation], "initialpunctuation": [.initialPunctuation],
        "pf": [.finalPunctuation], "finalpunctuation": [.finalPunctuation],
        "po": [.otherPunctuation], "otherpunctuation": [.otherPunctuation],
        "s": symbols, "symbol": symbols,
        "sm": [.mathSymbol], "mathsymbol": [.mathSymbol],
        "sc": [.currencySymbol], "currencysymbol": [.currencySymbol],
        "sk": [.modifierSymbol], "modifiersymbol": [.modifierSymbol],
        "so": [.otherSymbol], "othersymbol": [.otherSymbol],
        "z": separators, "separator": separators,
        "zs": [.spaceSeparator], "spaceseparator": [.spaceSeparator],
        "zl": [.lineSeparator], "lineseparator": [.lineSeparator],
        "zp": [.paragraphSeparator], "paragraphseparator": [.paragraphSeparator],
        "c": others, "other": others,
        "cc": [.control], "control": [.control], "cntrl": [.control],
        "cf": [.format], "format": [.format],
        "cs": [.surrogate], "surrogate": [.surrogate],
        "co": [.privateUse], "privateuse": [.privateUse],
        "cn": [.unassigned], "unassigned": [.unassigned],
    ]
}
