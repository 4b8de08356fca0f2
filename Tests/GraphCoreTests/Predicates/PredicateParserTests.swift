import Foundation
import Testing
@testable import GraphCore

/// The parser's trees, the canonical description, variables, and limits.
@Suite struct PredicateParserTests {
    private typealias P = GraphCore.Predicate

    @Test func andBindsTighterThanOrAndNotTighterThanAnd() throws {
        let a = P.comparison(Comparison("a", .equal, .constant(1)))
        let b = P.comparison(Comparison("b", .equal, .constant(2)))
        let c = P.comparison(Comparison("c", .equal, .constant(3)))
        #expect(try P(format: "a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try P(format: "a == 1 AND b == 2 OR c == 3") == .or([.and([a, b]), c]))
        #expect(try P(format: "NOT a == 1 AND b == 2") == .and([.not(a), b]))
        #expect(try P(format: "a == 1 AND b == 2 AND c == 3") == .and([a, b, c]))
        #expect(try P(format: "(a == 1 AND b == 2) AND c == 3") == .and([.and([a, b]), c]))
    }

    @Test func theDescriptionIsCanonical() throws {
        let p = try P(format: "title beginswith[dc] 'x' && plays => 3 || NOT (rating = nil) || album.title <> %@", "y")
        #expect(p.description == #"(title BEGINSWITH[cd] "x" AND plays >= 3) OR NOT rating == nil OR album.title != "y""#)
        #expect(try P(format: "some composers.name =< 'a'").description == #"ANY composers.name <= "a""#)
        #expect(try P(format: "songs.@avg.plays > 1.5").description == "songs.@avg.plays > 1.5")
        #expect(try P(format: "SUBQUERY(songs, $s, $s.plays > 1).@count == 0").description
            == "SUBQUERY(songs, $s, $s.plays > 1).@count == 0")
        #expect(try P(format: "#in == 'a\\n\"'").description == #"#in == "a\n\"""#)
    }

    @Test func predicatesBuiltInCodeRoundTripThroughTheirDescription() throws {
        let built: [P] = [
            .key("plays") > 10 && .key("album.title") == "Blue",
            (.key("a") == 1 && .key("b") == 2) && .key("c") == 3,
            !(.key("a") == 1 || .key("b") == 2),
            Expression.key("title").beginsWith("Blue", options: [.caseInsensitive, .diacriticInsensitive]),
            Expression.key("plays").isIn([1, 2.5, "x", nil, true]),
            Expression.key("plays").isBetween(1, and: 9),
            .comparison(Comparison(.aggregate(.sum, .keyPath("songs"), "plays"), .greaterThan, .constant(10), modifier: .direct)),
            .comparison(Comparison("composers.name", .like, .constant("D*"), options: .caseInsensitive, modifier: .all)),
        ]
        for predicate in built {
            #expect(try P(format: predicate.description, arguments: []) == predicate, "\(predicate)")
        }
    }

    @Test func everyKindOfValueRoundTripsThroughItsLiteral() throws {
        let container = try MusicModel.container()
        let song = try container.viewContext.insert("Song", values: ["title": "x"])
        try container.viewContext.save()
        let values: [Value] = [
            nil, 42, -7, 1.5, -0.25, 1e300, .double(.leastNonzeroMagnitude), .double(.nan), .double(.infinity), .double(-.infinity),
            .decimal(Decimal(string: "12.345") ?? 0), "quote \" backslash \\ tab \t bell \u{7} é 🎷", true, false,
            .date(Date(timeIntervalSince1970: 1_700_000_000.125)), .binary(Data([0, 1, 254, 255])),
            .uuid(UUID()), .uri(URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/")), .object(song.objectID),
        ]
        for value in values {
            let predicate = P.comparison(Comparison("title", .equal, .constant(value)))
            let again = try P(format: predicate.description, arguments: [], model: container.model)
            if case .double(let d) = value, d.isNaN {
                guard case .comparison(let c) = again, case .constant(.double(let e)) = c.right else {
                    Issue.record("NaN did not come back: \(again)")
                    continue
                }
                #expect(e.isNaN)
            } else {
                #expect(again == predicate, "\(predicate)")
            }
        }
        #expect(throws: GraphCore.PredicateError.self) {
            try P(format: P.comparison(Comparison("album", .equal, .constant(.object(song.objectID)))).description, arguments: [])
        }
    }

    @Test func variablesAreListedAndBoundOutsideSubqueries() throws {
        let p = try P(format: "title == $t AND SUBQUERY(composers, $c, $c.name == $n).@count > $min")
        #expect(p.variables == ["t", "n", "min"])
        let bound = p.withSubstitutionVariables(["t": "So What", "n": "Davis", "c": "ignored"])
        #expect(bound.variables == ["min"])
        #expect(bound.description == #"title == "So What" AND SUBQUERY(composers, $c, $c.name == "Davis").@count > $min"#)
    }

    @Test func anInvalidRegularExpressionIsReportedWhenTheFetchCompilesIt() throws {
        let fixture = try PredicateFixture()
        do {
            _ = try fixture.names("Song", try P(format: "title MATCHES '('"))
            Issue.record("no error")
        } catch GraphCore.PredicateError.invalidRegularExpression(let pattern, _) {
            #expect(pattern == "(")
        }
    }

    @Test func foldingIsUnicodeCorrect() throws {
        for (a, b, options) in [("Ünïcödé", "unicode", "cd"), ("Straße", "STRASSE", "c"), ("ǅ", "ǆ", "c"), ("Å", "a", "cd"),
                                ("e\u{301}", "\u{e9}", "")] {
            let p = try P(format: "%@ ==[\(options.isEmpty ? "c" : options)] %@", a, b)
            let fixture = try PredicateFixture()
            #expect(try fixture.names("Artist", p).count == 3, "\(a) vs \(b)")
        }
        #expect(StringFolding.fold("ABC", .caseInsensitive) == "abc")
        #expect(FoldedConstant("blue", options: .caseInsensitive).hasPrefix("BLUE Train"))
        #expect(!FoldedConstant("blue", options: .caseInsensitive).hasPrefix("Blu"))
        #expect(FoldedConstant("tr", options: .caseInsensitive).isContained(in: "Blue TRain"))
        #expect(FoldedConstant("strasse", options: .caseInsensitive).equals("Straße"))
    }

    @Test func nestingDeeperThanTheLimitIsAnErrorNotACrash() async throws {
        // Parsed: 64 levels are fine, 65 are not.
        let ok = String(repeating: "(", count: 64) + "plays == 1" + String(repeating: ")", count: 64)
        #expect(try P(format: ok) == P.comparison(Comparison("plays", .equal, .constant(1))))
        #expect(throws: GraphCore.PredicateError.nestingTooDeep(limit: 64, offset: 64)) {
            try P(format: "(" + ok + ")")
        }
        // Built in code: a long chain of && is flattened; deeply nested NOTs are refused when compiled.
        let fixture = try PredicateFixture()
        var chain: P = .key("plays") >= 0
        for i in 0..<20_000 { chain = chain && .key("plays") != Value.int(Int64(-i - 1)) }
        #expect(try fixture.names("Song", chain).count == 5)
        var nots: P = .key("plays") >= 0
        for _ in 0..<1000 { nots = .not(nots) }
        #expect(throws: GraphCore.PredicateError.nestingTooDeep(limit: 256, offset: 0)) { try fixture.names("Song", nots) }
    }

    @Test func errorsSayWhatAndWhere() throws {
        #expect(throws: GraphCore.PredicateError.syntax(expected: "a value after '=='", found: "end of input", offset: 19)) {
            try P(format: "name == 'x' && a ==")
        }
        let error = GraphCore.PredicateError.syntax(expected: "a value after '=='", found: "end of input", offset: 23)
        #expect(error.description == "expected a value after '==' at offset 23, found end of input")
        #expect(GraphCore.PredicateError.unknownKey(entity: "Song", key: "lyrics").description == "entity 'Song' has no property 'lyrics'")
        #expect(GraphCore.PredicateError.typeMismatch(subject: "Song.plays", expected: "numbers", got: #"string "x""#).description
            == #"Song.plays takes numbers, not string "x""#)
    }
}
