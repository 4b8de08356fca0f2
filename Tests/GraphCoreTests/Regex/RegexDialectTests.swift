import Foundation
import Testing
@testable import GraphCore

/// What the `MATCHES` dialect refuses, its limits, and the examples of the issue: a pattern
/// that makes a backtracking engine stall answers at once and right.
@Suite struct RegexDialectTests {
    private typealias P = GraphCore.Predicate

    private func refusal(_ pattern: String) -> RegexSyntaxError? {
        do {
            _ = try RegularExpression(pattern, caseInsensitive: false)
            return nil
        } catch {
            return error
        }
    }

    @Test func whatNeedsBacktrackingIsRefusedNamingTheConstructAndItsOffset() {
        let cases: [(String, Int, String)] = [
            ("(a)\\1", 3, "backreference"), ("(?<n>a)\\k<n>", 7, "backreference"), ("a(?=b)b", 1, "lookahead"),
            ("a(?!b).", 1, "lookahead"), ("(?<=a)b", 0, "lookbehind"), ("(?<!a)b", 0, "lookbehind"), ("(?>a*)a", 0, "atomic group"),
            ("a*+a", 1, "possessive"), ("(ab)++", 4, "possessive"), ("x(a++)b", 3, "possessive"),
        ]
        for (pattern, offset, construct) in cases {
            let error = refusal(pattern)
            #expect(error?.offset == offset, "\(pattern): \(String(describing: error))")
            #expect(error?.reason.contains(construct) == true, "\(pattern): \(String(describing: error))")
        }
    }

    @Test func malformedPatternsAreRefusedWithWhereAndWhat() {
        for (pattern, offset) in [("(", 0), ("a)", 1), ("[a", 0), ("*a", 0), ("a{2,1}", 1), ("\\", 0), ("[z-a]", 2),
                                  ("\\p{Nope}", 0), ("\\x{110000}", 0), ("(?x)a", 0), ("\\y", 0)] {
            #expect(refusal(pattern)?.offset == offset, "\(pattern): \(String(describing: refusal(pattern)))")
        }
    }

    @Test func aRepetitionThatWouldBlowUpTheProgramIsRefused() {
        #expect(refusal("a{1000}{1000}")?.reason.contains("more than \(RegexProgram.maximumSize) steps") == true)
        #expect(refusal("a{1001}")?.reason.contains("at most 1000") == true)
        #expect(refusal("(?:a{100}){50}") != nil)
        #expect(refusal("a{1000}") == nil)
    }

    @Test func aPossessiveQuantifierOnOneCharacterAtTheEndIsAccepted() throws {
        #expect(try RegularExpression("x\\d++", caseInsensitive: false).wholeMatch("x12") == true)
        #expect(try RegularExpression("x[a-z]*+|y", caseInsensitive: false).wholeMatch("xab") == true)
    }

    @Test func anInvalidPatternInAPredicateIsAPredicateErrorNamingTheOffset() throws {
        let container = try MusicModel.container()
        let request = FetchRequest(entityName: "Song", predicate: try P(format: "title MATCHES '(a)\\\\1'"))
        #expect {
            try container.viewContext.fetch(request)
        } throws: { error in
            guard case .invalidRegularExpression(let pattern, let reason)? = error as? GraphCore.PredicateError else { return false }
            return pattern == "(a)\\1" && reason.contains("backreference") && reason.contains("offset 3")
        }
    }

    /// Issue 20: `(a+)+$` against 50 titles of 30 `a`s and a `!` held the store for 37 s.
    @Test func aCatastrophicPatternAnswersAtOnceOnFiftyTitles() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        for _ in 0..<50 { _ = try context.insert("Song", values: ["title": .string(String(repeating: "a", count: 30) + "!")]) }
        try context.save()
        let clock = ContinuousClock()
        var count = -1
        let elapsed = try clock.measure {
            count = try context.count(for: FetchRequest(entityName: "Song", predicate: try P(format: "title MATCHES '(a+)+$'")))
        }
        #expect(count == 0)
        #expect(elapsed < .milliseconds(50), "took \(elapsed)")
    }

    /// Issue 20: ICU gave up on `(a+)+$|a*!` and answered "no match" (count 0).
    @Test func aPatternThatMatchesAfterACatastrophicBranchIsFound() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        _ = try context.insert("Song", values: ["title": .string(String(repeating: "a", count: 30) + "!")])
        try context.save()
        let request = FetchRequest(entityName: "Song", predicate: try P(format: "title MATCHES '(a+)+$|a*!'"))
        #expect(try context.count(for: request) == 1)
    }

    @Test func caseAndDiacriticOptionsStillApply() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        for title in ["Naïma", "BLUE train", "So What"] { _ = try context.insert("Song", values: ["title": .string(title)]) }
        try context.save()
        func titles(_ format: String) throws -> [String] {
            try context.fetch(FetchRequest(entityName: "Song", predicate: try P(format: format))).compactMap { object -> String? in if case .string(let s) = try object.value(forKey: "title") { s } else { nil } }.sorted()
        }
        #expect(try titles("title MATCHES[c] 'blue.*'") == ["BLUE train"])
        #expect(try titles("title MATCHES[d] 'Naima'") == ["Naïma"])
        #expect(try titles("title MATCHES[cd] 'NAIMA|so what'") == ["Naïma", "So What"])
        #expect(try titles("title MATCHES 'naima'") == [])
    }
}
