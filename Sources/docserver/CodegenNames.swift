import Foundation

/// Names of a model made into identifiers of a target language: a model's names come from JSON
/// model files and Xcode, and need not be identifiers there.
enum CodegenNames {
    /// Words TypeScript reserves (as identifiers of types and properties alike, kept simple).
    static let typeScriptReserved: Set<String> = [
        "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else",
        "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof",
        "new", "null", "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void",
        "while", "with", "implements", "interface", "let", "package", "private", "protected", "public",
        "static", "yield", "any", "boolean", "number", "string", "symbol", "type", "never", "unknown",
        "object", "undefined", "bigint", "await", "async",
    ]

    /// Whether `name` is an identifier (ASCII letters, digits, `_` and `$`, not starting with a digit).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first else { return false }
        if ("0"..."9").contains(first) { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar == "_" || scalar == "$" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
        }
    }

    /// A type name for an entity: its name when it is an identifier and not reserved; else the
    /// name with every other character as `_`, `_` before a leading digit, `_` after a reserved word.
    static func typeName(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            let allowed = scalar == "_" || scalar == "$" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            scalars.append(allowed ? scalar : "_")
        }
        var result = String(scalars)
        if result.isEmpty || ("0"..."9").contains(result.unicodeScalars.first ?? "_") { result = "_" + result }
        if typeScriptReserved.contains(result) { result += "_" }
        return result
    }

    /// A property key as TypeScript writes it: bare when it is an identifier, else a quoted string.
    static func propertyKey(_ name: String) -> String {
        isIdentifier(name) ? name : quoted(name)
    }

    /// `text` as a TypeScript (and Python) string literal in double quotes.
    static func quoted(_ text: String) -> String {
        quoted(text) { scalar in
            if scalar == "\u{2028}" || scalar == "\u{2029}" || scalar.value < 0x20 {
                let hex = String(scalar.value, radix: 16)
                return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            }
            return nil
        }
    }

    /// `text` in double quotes, with `"`, `\`, newline, return and tab escaped as every C-like
    /// language does, and any other scalar that `escape` spells (nil: kept as it is).
    static func quoted(_ text: String, escape: (Unicode.Scalar) -> String?) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if let escaped = escape(scalar) { result += escaped } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result + "\""
    }

    /// `text` safe inside a `/** … */` comment.
    static func comment(_ text: String) -> String {
        text.replacingOccurrences(of: "*/", with: "* /").replacingOccurrences(of: "\n", with: " ")
    }
}
