import Foundation
import PostgresTestSupport
import GraphCore
import PostgresStore
import ServerTestSupport
import Testing

/// Predicates that SQL answers (or narrows and GraphCore finishes) give the same objects, in
/// the same order and pages, as the in-memory store on the same data.
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct PredicateEquivalenceTests {
    /// Titles with the cases where SQL and Swift could differ: case, diacritics, canonically
    /// equivalent spellings, the Kelvin sign (which folds to k), ß, line breaks, LIKE's signs.
    static let titles = ["Blue", "blue", "BLUE", "Blues", "Kind", "\u{212A}ind", "kind of blue", "Straße", "STRASSE",
                         "Caf\u{E9}", "Cafe\u{301}", "cafe", "a\r\nb", "a\nb", "100%", "x_y", "Ünïcödé", "", "Zed", "zed"]
    static let tagNames = ["jazz", "Jazz", "rock", "K\u{212A}", "pop"]

    /// Predicate formats with their arguments; `#` in a format is replaced by a random title.
    static func randomPredicate(_ random: inout SplitMix64) throws -> GraphCore.Predicate {
        func title() -> String { titles[Int(random.next() % UInt64(titles.count))] }
        func piece(_ title: String) -> String { String(title.prefix(Int(random.next() % 3) + 1)) }
        func number() -> Int64 { Int64(random.next() % 12) }
        let choice = random.next() % 28
        switch choice {
        case 0: return try Predicate(format: "plays > %d", number())
        case 1: return try Predicate(format: "plays == %d", number())
        case 2: return try Predicate(format: "plays BETWEEN {%d, %d}", number(), number())
        case 3: return try Predicate(format: "rating < %@", Double(number()) / 2)
        case 4: return try Predicate(format: "rating == nil")
        case 5: return try Predicate(format: "title == %@", title())
        case 6: return try Predicate(format: "title BEGINSWITH[c] %@", piece(title()))
        case 7: return try Predicate(format: "title CONTAINS %@", piece(title()))
        case 8: return try Predicate(format: "title LIKE[c] %@", piece(title()) + "*")
        case 9: return try Predicate(format: "title ENDSWITH[cd] %@", piece(title()))
        case 10: return try Predicate(format: "title IN {%@, %@}", title(), title())
        case 11: return try Predicate(format: "title < %@", title())
        case 12: return try Predicate(format: "album.title == %@", title())
        case 13: return try Predicate(format: "ANY tags.name ==[c] %@", tagNames[Int(random.next() % 5)])
        case 14: return try Predicate(format: "tags.@count >= %d", number() % 4)
        case 15: return try Predicate(format: "NONE tags.name == %@", tagNames[Int(random.next() % 5)])
        case 16: return try Predicate(format: "title MATCHES %@", "[a-z].*")
        case 17: return try Predicate(format: "title ==[c] %@", title())
        case 18: return try Predicate(format: "title != %@", title())
        case 19: return try Predicate(format: "album == nil")
        case 20: return try Predicate(format: "ALL tags.name BEGINSWITH %@", "j")
        case 21: return try Predicate(format: "rating != %@", 1.5)
        case 22: return .not(try randomPredicate(&random))
        case 23: return .and([try randomPredicate(&random), try randomPredicate(&random)])
        case 24: return .or([try randomPredicate(&random), try randomPredicate(&random)])
        case 25: return try Predicate(format: "rating > %@", Double(number()) / 4)
        case 26: return try Predicate(format: "rating >= %d AND rating <= %d", number() / 2, number())
        default: return try Predicate(format: "title ==[cd] %@", title())
        }
    }

    /// The same random objects in both stores.
    private static func fill(_ contexts: [ObjectContext], seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var albums: [[ManagedObject]] = contexts.map { _ in [] }
        var tags: [[ManagedObject]] = contexts.map { _ in [] }
        for (index, context) in contexts.enumerated() {
            for title in ["Blue", "Kind", "Straße"] { albums[index].append(try context.insert("Album", values: ["title": .string(title)])) }
            for name in tagNames { tags[index].append(try context.insert("Tag", values: ["name": .string(name)])) }
        }
        for n in 0..<60 {
            let title = titles[Int(random.next() % UInt64(titles.count))]
            let plays = Int64(random.next() % 12)
            let ratingChoice = random.next() % 6
            let rating: Value = ratingChoice == 0 ? .null : ratingChoice == 1 ? .double(.nan) : .double(Double(random.next() % 10) / 2)
            let album = Int(random.next() % 4)
            let tagMask = random.next() % 32
            for (index, context) in contexts.enumerated() {
                let song = try context.insert("Song", values: ["title": .string(title), "plays": .int(plays), "rating": rating,
                                                              "serial": .int(Int64(n))])
                if album < 3 { try song.setObject(albums[index][album], forKey: "album") }
                try song.setObjects(tags[index].enumerated().filter { tagMask & (1 << $0.offset) != 0 }.map(\.element), forKey: "tags")
            }
        }
        for context in contexts { try context.save() }
    }

    private static func describe(_ objects: [ManagedObject]) throws -> [String] {
        try objects.map { object in
            let rating = try object.value(forKey: "rating")
            return "\(try object.value(forKey: "title"))|\(try object.value(forKey: "plays"))|\(rating)"
        }
    }

    @Test func randomPredicatesAnswerAsTheInMemoryStore() throws {
        let postgres = try PostgresFixture()
        let memoryCoordinator = StoreCoordinator(model: postgres.model)
        try memoryCoordinator.addPersistentStore(type: "InMemory")
        try Self.fill([postgres.context, ObjectContext(coordinator: memoryCoordinator)], seed: 19)
        // Fresh contexts: nothing pending, so the stores sort, page and count.
        let fromPostgres = ObjectContext(coordinator: try postgres.secondCoordinator().coordinator)
        let fromMemory = ObjectContext(coordinator: memoryCoordinator)

        var random = SplitMix64(seed: 1_900)
        var translated = 0
        let cases = Int(ProcessInfo.processInfo.environment["POSTGRES_PROPERTY_CASES"] ?? "") ?? 150
        for _ in 0..<cases {
            let predicate = try Self.randomPredicate(&random)
            var request = FetchRequest(entityName: "Song", predicate: predicate)
            let sorted = random.next() % 2 == 0
            if sorted {
                // The serial number last: a total order, so that pages hold the same objects.
                request.sortDescriptors = [SortDescriptor("plays", ascending: false), SortDescriptor("title"), SortDescriptor("serial")]
                request.fetchLimit = Int(random.next() % 8)
                request.fetchOffset = Int(random.next() % 4)
            }
            let expected = try Self.describe(try fromMemory.fetch(request))
            let got = try Self.describe(try fromPostgres.fetch(request))
            if sorted {
                #expect(got == expected, "\(predicate)")
            } else {
                #expect(got.sorted() == expected.sorted(), "\(predicate)")
            }
            #expect(try fromPostgres.count(for: request) == fromMemory.count(for: request), "\(predicate)")
            #expect(try fromPostgres.fetchObjectIDs(request).count == fromMemory.fetchObjectIDs(request).count, "\(predicate)")
            if try postgres.store.explain(request).predicateInSQL { translated += 1 }
        }
        // Most cases are answered by SQL alone; the rest are narrowed and finished by GraphCore.
        #expect(translated > cases / 3)
    }

    @Test func explainSaysWhatSQLAnswersAndWhatGraphCoreEvaluates() throws {
        let fixture = try PostgresFixture()
        func plan(_ format: String, _ arguments: any PredicateArgument...) throws -> PostgresFetchPlan {
            var request = FetchRequest(entityName: "Song", predicate: try Predicate(format: format, arguments: arguments.map(\.predicateValue)))
            request.sortDescriptors = [SortDescriptor("plays")]
            request.fetchLimit = 10
            return try fixture.store.explain(request)
        }
        let exact = try plan("plays > %d AND album.title == %@ AND ANY tags.name == %@ AND tags.@count < 3", 3, "Blue", "jazz")
        #expect(exact.predicateInSQL && exact.sortedAndPagedInSQL)
        #expect(exact.sql.contains("LIMIT $"))
        #expect(!exact.sql.contains("Blue") && !exact.sql.contains("jazz"))  // values are parameters

        let narrowed = try plan("title BEGINSWITH[c] %@ AND plays > 2", "bl")
        #expect(!narrowed.predicateInSQL && !narrowed.sortedAndPagedInSQL)
        #expect(narrowed.sql.contains("starts_with"))

        let evaluated = try plan("title MATCHES %@", "b.*")
        #expect(!evaluated.predicateInSQL)
        #expect(!evaluated.sql.contains("MATCHES"))
    }
}
