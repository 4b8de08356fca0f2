import Foundation

/// A `LIKE` pattern: `*` matches any run of characters (none included), `?` exactly one;
/// a backslash makes the next character literal (`\*`). Matched against the whole string,
/// after folding both for `[c]`/`[d]`.
struct LikePattern {
    enum Element: Equatable {
        case character(Character)
        case one
        case any
    }

    let elements: [Element]
    let options: Comparison.Options
    /// The elements as bytes (`*` = 256, `?` = 257) when every literal is ASCII without line breaks.
    private let asciiElements: [UInt16]?

    init(_ pattern: String, options: Comparison.Options) {
        self.options = options
        var elements: [Element] = []
        var escaped = false
        for c in StringFolding.fold(pattern, options) {
            if escaped {
                elements.append(.character(c))
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == "*" {
                if elements.last != .any { elements.append(.any) }
            } else if c == "?" {
                elements.append(.one)
            } else {
                elements.append(.character(c))
            }
        }
        if escaped { elements.append(.character("\\")) }
        self.elements = elements
        var ascii: [UInt16]? = []
        for element in elements {
            switch element {
            case .any: ascii?.append(256)
            case .one: ascii?.append(257)
            case .character(let c):
                if let b = c.asciiValue, b != 0x0A, b != 0x0D { ascii?.append(UInt16(b)) } else { ascii = nil }
            }
        }
        asciiElements = ascii
    }

    func matches(_ s: String) -> Bool {
        if let asciiElements {
            var s = s
            let result: Bool? = s.withUTF8 { buffer in
                for b in buffer where b >= 0x80 || b == 0x0A || b == 0x0D { return nil }
                let lower = options.contains(.caseInsensitive)
                return Self.glob(asciiElements, count: buffer.count, any: 256, one: 257) { p, i in
                    UInt16(lower ? StringFolding.lower(buffer[i]) : buffer[i]) == p
                }
            }
            if let result { return result }
        }
        let characters = Array(StringFolding.fold(s, options))
        return Self.glob(elements, count: characters.count, any: .any, one: .one) { p, i in
            p == .character(characters[i])
        }
    }

    /// Wildcard matching with one backtrack point per star (linear in practice, quadratic at worst).
    private static func glob<P: Equatable>(_ pattern: [P], count: Int, any: P, one: P, literal: (P, Int) -> Bool) -> Bool {
        var p = 0, t = 0
        var star = -1, mark = 0
        while t < count {
            if p < pattern.count, pattern[p] != any, pattern[p] == one || literal(pattern[p], t) {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == any {
                star = p
                mark = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == any { p += 1 }
        return p == pattern.count
    }
}
