/// Makes client-supplied text safe for a log line: control characters (newlines, ESC, …),
/// other non-printable characters and backslashes are escaped as `\n`, `\t`, `\\` or
/// `\u{1B}`, and the text is capped at ``limit`` characters, so a client can neither forge
/// a log line nor send escape sequences to a terminal.
enum LogText {
    /// At most this many characters of client text reach a log line.
    static let limit = 128

    static func escaped(_ text: String) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                result += "…"
                break
            }
            count += 1
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\\": result += "\\\\"
            default:
                if isPrintable(scalar) {
                    result.unicodeScalars.append(scalar)
                } else {
                    result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                }
            }
        }
        return result
    }

    /// Not a control, format, separator (other than the space), surrogate, private-use or
    /// unassigned character.
    private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
            return false
        case .spaceSeparator:
            return scalar == " "
        default:
            return true
        }
    }
}
