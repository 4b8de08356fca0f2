import Foundation
import ServerTestSupport
import Testing
@testable import GraphCore

/// The linear-time engine against Foundation's `NSRegularExpression` (ICU), on hand-written
/// cases and on seeded random patterns and texts: where both accept a pattern, both must
/// agree on every whole-string match.
@Suite struct RegexDifferentialTests {
    /// ICU's whole-string answer, or nil when ICU refuses the pattern.
    static func icu(_ pattern: String, _ text: String, caseInsensitive: Bool = false) -> Bool? {
        guard let regex = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: caseInsensitive ? [.caseInsensitive] : []) else {
            return nil
        }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    static func ours(_ pattern: String, _ text: String, caseInsensitive: Bool = false) -> Bool? {
        guard let regex = try? RegularExpression(pattern, caseInsensitive: caseInsensitive) else { return nil }
        return regex.wholeMatch(text)
    }

    static let patterns: [String] = [
        "abc", "a.c", "a*", "a+b", "a?b", "a{2}", "a{2,}", "a{2,3}", "a{0,2}b", "(ab)+", "(?:ab|cd)*", "a|b|", "(a|ab)(c|bcd)",
        "[abc]+", "[^abc]+", "[a-z]+", "[a-zA-Z0-9_]+", "[\\d\\s]+", "[\\w-]+", "[]a]", "[a\\]]+", "[[a-c][x-z]]+", "[a-z&&[^aeiou]]+",
        "[a-z--[aeiou]]+", "\\d+", "\\D+", "\\w+", "\\W+", "\\s+", "\\S+", "\\p{L}+", "\\p{Lu}\\p{Ll}+", "\\p{N}+", "\\p{P}+",
        "\\P{L}+", "\\pL+", "[\\p{L}\\p{N}]+", "[[:alpha:]]+", "\\.", "\\\\", "\\t", "\\n", "\\u00e9", "\\x{1F3B7}", "\\x41",
        "\\Qa.b\\E", "a\\Q*\\E+", "^abc$", "abc$", "\\Aabc\\z", "abc\\Z", "\\bfoo\\b", "foo\\B.*", ".*\\bbar", "(?i)abc", "a(?i)bc",
        "(?i:a)b", "(?i)[a-c]+", "(?i)[^a]", "(?i)\\p{Lu}+", "(?s).+", ".+", "(?m)^a$\\n^b$", "(?<word>\\w+) (?:\\w+)",
        "a*?b", "a+?b", "a??b", "a{1,3}?b", "\\d++", "[a-z]*+", "(a+)+$", "(a|aa)+$", "(a*)*b", "(a?){5}a{5}", "(x+x+)+y",
        "é", "e\\u0301", "[é-ë]+", ".", "..", "Straße", "(?i)straße", "(?i)ſ", "(?i)σ", "[^\\n]+", "\\R", "a\\Rb", "\\h+", "(?#c)a",
        "a{0}", "(?:)", "()", "a||b", "[-a]+", "[a-]+", "[\\-]", "\\$\\^\\*", "\\d{3}-\\d{4}", "[A-Z][a-z]+ [A-Z].*",
        "(?i)ǅ", "\\x{0}", "[\\x00-\\x1f]", "\\cA", "\\e\\a\\f\\r", "\\012", "(?-i)a", "(?i)a(?-i)b", "a{,3}", "\\v", "\\V+",
    ]

    static let texts: [String] = [
        "", "a", "b", "ab", "abc", "aBc", "ABC", "aaa", "aaab", "abab", "abcd", "abcbcd", "cd", "xyz", "hello", "Hello",
        "Hello World", "foo bar", "foo", "foobar", "bar", "123", "12a", "555-1234", "a.b", "a*b", "a\\b", "\t", "\n", "a\n", "abc\n",
        "abc\r\n", "a\nb", "a\r\nb", "é", "e\u{301}", "ê", "ë", "Éa", "🎷", "A", "\u{1}", "\u{0}", "Straße", "STRASSE", "strasse", "s", "S",
        "ſ", "σ", "Σ", "ς", "ǅ", "ǆ", "Ǆ", "!?", "-", "]", "a]", "]a", "_", "word two", "x x x x x y", "aaaaaaaaaab", "aaaaaaaaaa",
        "bcdfg", "aeiou", "Ünïcödé", "ĳ", "İ", "ı", "K", "\u{212A}", "k", " ", "\u{A0}", "\u{2028}", "$^*", "\u{1B}\u{7}\u{C}\r",
        "\n\n", "\r", "a\u{85}", "1\u{0663}",
    ]

    @Test func theHandWrittenTableMatchesAsICUDoes() {
        var compared = 0
        for pattern in Self.patterns {
            for caseInsensitive in [false, true] {
                for text in Self.texts {
                    guard let expected = Self.icu(pattern, text, caseInsensitive: caseInsensitive),
                          let actual = Self.ours(pattern, text, caseInsensitive: caseInsensitive) else { continue }
                    compared += 1
                    #expect(actual == expected, "\(pattern.debugDescription) [c: \(caseInsensitive)] on \(text.debugDescription): ICU \(expected)")
                }
            }
        }
        #expect(compared > 15_000)
    }

    @Test func everyPatternOfTheTableThatICUAcceptsIsAcceptedOrRefusedForLinearTime() {
        for pattern in Self.patterns where Self.icu(pattern, "") != nil {
            do {
                _ = try RegularExpression(pattern, caseInsensitive: false)
            } catch {
                #expect(error.reason.contains("linear") || error.reason.contains("possessive"), "\(pattern): \(error)")
            }
        }
    }

    @Test func seededRandomPatternsAndTextsMatchAsICUDoes() {
        var generator = SplitMix64(seed: 20)
        let atoms = ["a", "b", "c", ".", "[ab]", "[^a]", "\\w", "\\d", "\\s", "(?:a|b)", "(?:ab|a)", "x", "[a-c]", "A", "é"]
        let quantifiers = ["", "", "", "*", "+", "?", "{2}", "{1,2}", "{0,3}", "*?", "+?"]
        let alphabet: [Character] = ["a", "b", "c", "A", "x", "1", " ", "é", "\n"]
        var compared = 0
        for _ in 0..<1500 {
            var pattern = ""
            for _ in 0..<Int.random(in: 1...5, using: &generator) {
                pattern += atoms[Int.random(in: 0..<atoms.count, using: &generator)]
                pattern += quantifiers[Int.random(in: 0..<quantifiers.count, using: &generator)]
                // Only bounded repetitions of groups, and no empty branches: ICU can loop forever
                // on an unbounded repetition of what matches the empty string.
                if Int.random(in: 0..<8, using: &generator) == 0 { pattern = "(?:\(pattern))" + ["?", "{2}", "{1,2}", "??"][Int.random(in: 0..<4, using: &generator)] }
                if Int.random(in: 0..<10, using: &generator) == 0 { pattern += "|" + atoms[Int.random(in: 0..<atoms.count, using: &generator)] }
            }
            // Anchors only outside repetitions: ICU can loop forever on a repeated one
            // (`(?:(?:a|b)*?(a|)){2}^+?[ab]+?x+?` on "ab").
            pattern = ["", "", "^", "\\b"][Int.random(in: 0..<4, using: &generator)] + pattern + ["", "", "$", "\\b"][Int.random(in: 0..<4, using: &generator)]
            let caseInsensitive = Int.random(in: 0..<4, using: &generator) == 0
            for _ in 0..<12 {
                let text = String((0..<Int.random(in: 0...7, using: &generator)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
                guard let expected = Self.icu(pattern, text, caseInsensitive: caseInsensitive),
                      let actual = Self.ours(pattern, text, caseInsensitive: caseInsensitive) else { continue }
                compared += 1
                #expect(actual == expected, "\(pattern.debugDescription) [c: \(caseInsensitive)] on \(text.debugDescription): ICU \(expected)")
            }
        }
        #expect(compared > 10_000)
    }
}
