import Foundation
import Testing
@testable import GraphCore

/// The text `description` gives for expressions: what RemoteStore sends to the server, so it
/// must parse back to the same predicate whatever the shape.
@Suite struct ExpressionDescriptionTests {
    @Test func operatorsPrintWithTheParenthesesTheirPrecedenceNeedsAndNoMore() throws {
        let cases: [(String, String)] = [
            ("plays + 1 == 2", "plays + 1 == 2"),
            ("(plays + 1) * 2 == 4", "(plays + 1) * 2 == 4"),
            ("plays - (1 - 2) == 4", "plays - (1 - 2) == 4"),
            ("plays - 1 - 2 == 4", "plays - 1 - 2 == 4"),
            ("2 + 3 * plays == 152", "2 + 3 * plays == 152"),
            ("(plays & 2) | 1 == 3", "plays & 2 | 1 == 3"),
            ("plays & (2 | 1) == 3", "plays & (2 | 1) == 3"),
            ("-plays == -50", "-plays == -50"),
            ("0 - plays == -50", "-plays == -50"),
            ("--plays == 50", "--plays == 50"),
            ("~-~plays == 0", "~-~plays == 0"),
            ("-(plays + 1) * 2 == 0", "-(plays + 1) * 2 == 0"),
            ("3 - -plays == 0", "3 - -plays == 0"),
            ("(-plays).x == 0", "(-plays).x == 0"),
            ("(~plays).x == 0", "(~plays).x == 0"),
            ("0 - 5 == -5", "0 - 5 == -5"),
            ("0 - (-5) == 5", "0 - -5 == 5"),
            ("0 - 5.x == 0", "0 - 5.x == 0"),
            ("0 - 9223372036854775807 - 1 == 0", "0 - 9223372036854775807 - 1 == 0"),
            ("~(plays + 1) == 0", "~(plays + 1) == 0"),
            ("(plays + 1).x == 0", "(plays + 1).x == 0"),
            ("plays ** -1 == 0.5", "plays ** -1 == 0.5"),
        ]
        for (format, printed) in cases {
            let predicate = try GraphCore.Predicate(format: format)
            #expect(predicate.description == printed)
            #expect(try GraphCore.Predicate(format: predicate.description) == predicate, "\(format)")
        }
    }

    /// A left-associative chain nests one level per operator in the tree; printed with a
    /// parenthesis per level, one inside a few parentheses would not parse back.
    @Test func aLongChainOfOperatorsPrintsAsTextThatParsesBack() throws {
        let format = "((plays" + String(repeating: " - 1", count: 60) + ")) < 0"
        let predicate = try GraphCore.Predicate(format: format)
        #expect(predicate.description == "plays" + String(repeating: " - 1", count: 60) + " < 0")
        #expect(try GraphCore.Predicate(format: predicate.description) == predicate)
    }

    /// A unary minus nests one level, as `-x`; printed as `0 - (x)` it took two, so a chain of
    /// them that parsed did not parse back (found by the predicate fuzzer).
    @Test func aChainOfUnaryMinusesPrintsAsDeepAsItParsed() throws {
        for count in [1, 2, 33, 63] {
            let format = String(repeating: "-", count: count) + "plays < 0"
            let predicate = try GraphCore.Predicate(format: format)
            #expect(predicate.description == format)
            #expect(try GraphCore.Predicate(format: predicate.description) == predicate)
        }
        let mixed = String(repeating: "~-", count: 31) + "plays < 0"
        #expect(try GraphCore.Predicate(format: GraphCore.Predicate(format: mixed).description) == GraphCore.Predicate(format: mixed))
    }

    /// The tree of a chain is as deep as the chain is long: a chain of any length from the
    /// wire would overflow the stack of whatever walks the tree (compiling, comparing, freeing).
    @Test func aChainOfOperatorsCountsTowardTheNestingLimit() throws {
        let format = "plays" + String(repeating: " - 1", count: 100_000) + " < 0"
        #expect(throws: GraphCore.PredicateError.nestingTooDeep(limit: 64, offset: 262)) {
            try GraphCore.Predicate(format: format)
        }
        #expect(throws: GraphCore.PredicateError.nestingTooDeep(limit: 64, offset: 191)) {
            try GraphCore.Predicate(format: "%@" + String(repeating: "[0]", count: 100_000) + " == 1", arguments: [[1]])
        }
        #expect(throws: GraphCore.PredicateError.nestingTooDeep(limit: 64, offset: 1542)) {
            try GraphCore.Predicate(format: "songs" + String(repeating: ".@distinctUnionOfObjects", count: 100_000) + ".@count == 1")
        }
        var built = Expression.keyPath("plays")
        for _ in 0..<300 { built = .function(.subtract, [built, .constant(1)]) }
        let model = try MusicModel.container().model
        let song = try #require(model.entity(named: "Song"))
        #expect(throws: GraphCore.PredicateError.nestingTooDeep(limit: 256, offset: 0)) {
            _ = try PredicateEvaluator<ManagedObject>(.comparison(Comparison(built, .lessThan, .constant(0))), entity: song) { _ in nil }
        }
    }
}
