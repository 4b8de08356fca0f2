import Foundation
import Testing
@testable import GraphCore

/// A fetch with a ``FetchRequest/deadline`` stops with ``GraphError/timeLimitExceeded(entity:)``
/// once it has passed, in the store's scan and in the context's own filtering, and never
/// answers with what it found so far.
@Suite struct FetchDeadlineTests {
    private typealias P = GraphCore.Predicate

    /// A predicate slow by construction: forty `.*` in a row over texts of 200 000 scalars
    /// keep about eighty threads alive at every scalar.
    private static let slowFormat = "notes MATCHES '" + String(repeating: ".*", count: 40) + "z'"

    private func container(songs: Int, saved: Bool) throws -> PersistentContainer {
        let container = try MusicModel.container()
        let long = String(repeating: "a", count: 200_000)
        for index in 0..<songs {
            _ = try container.viewContext.insert("Song", values: ["title": .string("song \(index)"), "notes": .string(long)])
        }
        if saved { try container.viewContext.save() }
        return container
    }

    private func expectTimeLimit(_ container: PersistentContainer, _ request: FetchRequest) {
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(throws: GraphError.timeLimitExceeded(entity: "Song")) { try container.viewContext.count(for: request) }
        }
        #expect(elapsed < .seconds(2), "stopped after \(elapsed)")
    }

    @Test func aSlowPredicateInTheStoreStopsAtTheDeadlineWithAnError() throws {
        let container = try container(songs: 20, saved: true)
        var request = FetchRequest(entityName: "Song", predicate: try P(format: Self.slowFormat))
        request.deadline = .now + .milliseconds(100)
        expectTimeLimit(container, request)
    }

    @Test func aSlowPredicateOnUnsavedObjectsStopsAtTheDeadlineWithAnError() throws {
        let container = try container(songs: 20, saved: false)
        var request = FetchRequest(entityName: "Song", predicate: try P(format: Self.slowFormat))
        request.deadline = .now + .milliseconds(100)
        expectTimeLimit(container, request)
    }

    @Test func aSlowMatchInsideASubqueryStopsAtTheDeadline() throws {
        let container = try container(songs: 10, saved: true)
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "long"])
        for song in try context.fetch(FetchRequest(entityName: "Song")) { try song.setValue(.object(album.objectID), forKey: "album") }
        try context.save()
        var request = FetchRequest(entityName: "Album", predicate: try P(format: "SUBQUERY(songs, $s, $s." + Self.slowFormat + ").@count > 0"))
        request.deadline = .now + .milliseconds(100)
        #expect(throws: GraphError.timeLimitExceeded(entity: "Album")) { try context.fetch(request) }
    }

    @Test func aDeadlineAlreadyPassedStopsEvenAFetchWithoutPredicate() throws {
        let container = try container(songs: 3, saved: true)
        var request = FetchRequest(entityName: "Song")
        request.deadline = .now - .seconds(1)
        #expect(throws: GraphError.timeLimitExceeded(entity: "Song")) { try container.viewContext.fetch(request) }
        #expect(GraphError.timeLimitExceeded(entity: "Song").description.contains("ran past its deadline"))
    }

    @Test func aFetchWithinItsDeadlineAnswersAsWithoutOne() throws {
        let container = try container(songs: 3, saved: true)
        var request = FetchRequest(entityName: "Song", predicate: try P(format: "notes MATCHES 'a+' AND title ENDSWITH '1'"))
        request.deadline = .now + .seconds(60)
        #expect(try container.viewContext.count(for: request) == 1)
    }

    @Test func theEvaluatorStopsAtItsDeadline() throws {
        let container = try container(songs: 1, saved: true)
        let song = try #require(try container.viewContext.fetch(FetchRequest(entityName: "Song")).first)
        let evaluator = try PredicateEvaluator<ManagedObject>(try P(format: Self.slowFormat), entity: song.entity,
                                                              deadline: .now + .milliseconds(50), resolve: { _ in nil })
        #expect(throws: GraphError.timeLimitExceeded(entity: "Song")) { try evaluator.matches(song) }
    }
}
