import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// A format parsed once and bound with new arguments gives exactly what a parse gives: the
/// same predicate or the same error, for every format of the predicate table with its own
/// arguments and with arguments of other rows, used often enough to have a template.
@Suite struct PredicateCacheTests {
    /// The cache's answer and a parse's, as text: the predicate, or the error.
    static func both(_ cache: PredicateCache, _ format: String, _ arguments: [PredicateValue]) -> (cached: String, parsed: String) {
        func text(_ body: () throws -> GraphCore.Predicate) -> String {
            do { return "predicate \(try body())" } catch { return "error \(error)" }
        }
        return (text { try cache.predicate(format: format, arguments: arguments) },
                text { try GraphCore.Predicate(format: format, arguments: arguments, model: cache.model) })
    }

    @Test func everyFormatOfTheTableGivesWhatAParseGivesWithItsOwnArgumentsAndOthers() throws {
        let fixture = try PredicateFixture()
        let cache = PredicateCache(model: fixture.container.model, capacity: 10_000)
        let rows = PredicateTable.all
        let pool = rows.flatMap { row in row.arguments.map { row.resolve($0, fixture) } }
        #expect(pool.count >= 20)
        var rng = SplitMix64(seed: 3)
        var compared = 0
        for row in rows {
            let own = row.arguments.map { row.resolve($0, fixture) }
            // The row's own arguments three times (the second makes the template), then
            // arguments of other rows, as many (an argument that does not fit: the same error).
            var uses = [own, own, own]
            for _ in 0..<6 {
                uses.append(own.map { _ in pool.randomElement(using: &rng) ?? .value(.null) })
            }
            uses.append(own.dropLast().map { $0 })  // one argument short
            uses.append(own + [.value(.int(1))])  // one too many
            for arguments in uses {
                let (cached, parsed) = Self.both(cache, row.format, arguments)
                #expect(cached == parsed, "\(row.format) with \(arguments)")
                compared += 1
            }
        }
        #expect(compared == rows.count * 11)
    }

    /// Where the parse reads an argument's value (a negated number folded, the bounds of
    /// `BETWEEN` counted, a `CAST` made at once) or the argument is structure (`%K`, a key
    /// after `.`), the format has no template: a first argument that happens to give the same
    /// predicate either way never lets a later one give another.
    @Test func formatsWhoseParseReadsTheirArgumentsAreParsedEachTime() throws {
        let fixture = try PredicateFixture()
        let cache = PredicateCache(model: fixture.container.model)
        let cases: [(String, [[PredicateValue]])] = [
            ("plays == -%d", [[.value(.int(.min))], [.value(.int(.min))], [.value(.int(5))]]),
            ("plays BETWEEN %@", [[.array([.value(.int(1)), .value(.int(9))])], [.array([.value(.int(1)), .value(.int(9))])],
                                  [.array([.value(.int(1)), .value(.int(2)), .value(.int(3))])]]),
            ("CAST(%@, \"NSDate\") < CAST(0, \"NSDate\")", [[.value(.bool(true))], [.value(.bool(true))], [.value(.string("x"))],
                                                         [.value(.double(5))]]),
            ("%K == 3", [[.value(.string("plays"))], [.value(.string("plays"))], [.value(.string("title"))]]),
            ("album.%K == 'x'", [[.value(.string("title"))], [.value(.string("title"))], [.value(.string("year"))]]),
            ("FUNCTION(title, %@) == 'X'", [[.value(.string("uppercaseString"))], [.value(.string("uppercaseString"))],
                                          [.value(.string("lowercaseString"))]]),
        ]
        for (format, uses) in cases {
            for arguments in uses {
                let (cached, parsed) = Self.both(cache, format, arguments)
                #expect(cached == parsed, "\(format) with \(arguments)")
            }
        }
    }

    @Test func aTemplateBindsNewValuesOfEveryKind() throws {
        let cache = PredicateCache(model: nil)
        let format = "plays == %d AND title BEGINSWITH[c] %@ AND rating > %f AND genre IN %@ AND $x == %s"
        for n in 0..<50 {
            let arguments: [PredicateValue] = [.value(.int(Int64(n))), .value(.string("t\(n)")), .value(.int(Int64(n))),
                                               .array([.value(.string("a")), .value(.int(Int64(n)))]), .value(.string("s"))]
            let (cached, parsed) = Self.both(cache, format, arguments)
            #expect(cached == parsed && cached.hasPrefix("predicate"), "\(n)")
        }
        // `%hhd` still takes only -128...127: the error names the specifier and its offset.
        let small = "plays == %hhd"
        for value: Int64 in [1, 2, 300, -129, 127] {
            let (cached, parsed) = Self.both(cache, small, [.value(.int(value))])
            #expect(cached == parsed, "\(value)")
        }
    }

    @Test func theCacheKeepsAtMostItsCapacityAndFormatsUsedAgainFirst() throws {
        let cache = PredicateCache(model: nil, capacity: 8)
        for n in 0..<3 {
            for _ in 0..<2 { _ = try cache.predicate(format: "plays == %d OR plays == \(n)", arguments: [.value(.int(1))]) }
        }
        #expect(cache.count == 3)
        // Formats seen once (values written into the format) fill the cache; they are dropped
        // first, and the three used twice stay.
        for n in 0..<40 { _ = try cache.predicate(format: "plays == \(n + 100)", arguments: []) }
        #expect(cache.count <= 8 && cache.count >= 3)
        let long = "plays == %d" + String(repeating: " ", count: PredicateCache.maximumFormatLength)
        for _ in 0..<3 { _ = try cache.predicate(format: long, arguments: [.value(.int(1))]) }
        #expect(cache.count <= 8)
        #expect(try cache.predicate(format: "plays == %d OR plays == 0", arguments: [.value(.int(4))])
                == GraphCore.Predicate(format: "plays == %d OR plays == 0", arguments: [.value(.int(4))]))
    }
}
