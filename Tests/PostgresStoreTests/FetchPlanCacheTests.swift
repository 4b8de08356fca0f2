import Foundation
import GraphCore
import PostgresTestSupport
@testable import PostgresStore
import Testing

/// Fetches of one shape are translated once (`FetchPlanCache`): the plan kept for the shape is
/// bound to each request's own constants, and a value that changes the SQL gives another shape.
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct FetchPlanCacheTests {
    /// Songs titled A, B and C, played 1, 2, 3 times, rated nil, 1.5 and 2.5.
    private func songs() throws -> PostgresFixture {
        let fixture = try PostgresFixture()
        for (title, plays, rating) in [("A", Int64(1), Value.null), ("B", 2, .double(1.5)), ("C", 3, .double(2.5))] {
            _ = try fixture.context.insert("Song", values: ["title": .string(title), "plays": .int(plays), "rating": rating])
        }
        try fixture.context.save()
        return fixture
    }

    private func titles(_ store: PostgresStore, _ format: String, _ arguments: [PredicateValue], limit: Int = 0) throws -> [String] {
        var request = FetchRequest(entityName: "Song", predicate: try Predicate(format: format, arguments: arguments))
        request.sortDescriptors = [SortDescriptor("title")]
        request.fetchLimit = limit
        let result = try store.runFetch(request)
        return result.snapshots.compactMap { snapshot in
            guard let index = snapshot.objectID.entity.index(ofProperty: "title"), case .string(let title) = snapshot.values[index] else { return nil }
            return title
        }
    }

    @Test func twoFetchesOfOneShapeShareAPlanAndAnswerEachWithItsOwnConstants() throws {
        let fixture = try songs()
        let store = fixture.store
        #expect(try titles(store, "title == %@", ["A"]) == ["A"])
        #expect(store.fetchPlans.count == 1)
        #expect(try titles(store, "title == %@", ["B"]) == ["B"])
        #expect(try titles(store, "title == %@", ["nothing"]) == [])
        #expect(try titles(store, "plays >= %d AND title != %@", [2, "C"]) == ["B"])
        #expect(try titles(store, "plays >= %d AND title != %@", [1, "B"]) == ["A", "C"])
        // A limit is a parameter too: another limit, the same plan.
        #expect(try titles(store, "plays > %d", [0], limit: 1) == ["A"])
        #expect(try titles(store, "plays > %d", [0], limit: 2) == ["A", "B"])
        #expect(store.fetchPlans.count == 3)
        // The statement of the second request of a shape binds its own value, not the first's.
        var request = FetchRequest(entityName: "Song", predicate: try Predicate(format: "title == %@", "B"))
        request.sortDescriptors = [SortDescriptor("title")]
        let first = try store.plan(for: request)
        request.predicate = try Predicate(format: "title == %@", "C")
        let second = try store.plan(for: request)
        #expect(first.statement.text == second.statement.text)
        #expect(first.statement.binds != second.statement.binds)
    }

    @Test func nilAndAValueAreTwoShapes() throws {
        let fixture = try songs()
        let store = fixture.store
        let none: PredicateValue = nil
        #expect(try titles(store, "rating == %@", [none]) == ["A"])
        #expect(try titles(store, "rating == %@", [1.5]) == ["B"])
        #expect(try titles(store, "rating == %@", [none]) == ["A"])
        #expect(try titles(store, "rating != %@", [none]) == ["B", "C"])
        #expect(try titles(store, "rating != %@", [2.5]) == ["A", "B"])
        #expect(store.fetchPlans.count == 4)
        // NaN is no number SQL compares: GraphCore judges it, whatever came before.
        #expect(try titles(store, "rating < %@", [2.0]) == ["B"])
        #expect(try titles(store, "rating < %@", [.value(.double(.nan))]) == [])
        #expect(try titles(store, "rating < %@", [3.0]) == ["B", "C"])
    }

    @Test func aShapeWhoseParametersAreMadeFromItsConstantsIsPlannedAnewEachTime() throws {
        let fixture = try songs()
        let store = fixture.store
        #expect(try titles(store, "title BEGINSWITH[c] %@", ["a"]) == ["A"])
        #expect(try titles(store, "title BEGINSWITH[c] %@", ["b"]) == ["B"])
        #expect(try titles(store, "title LIKE %@", ["C*"]) == ["C"])
        var request = FetchRequest(entityName: "Song", predicate: try Predicate(format: "title BEGINSWITH[c] %@", "a"))
        request.sortDescriptors = [SortDescriptor("title")]
        let key = FetchPlanCache.Shape(request, predicate: PredicateShape.of(try #require(request.predicate), storeIdentifier: store.identifier).shape,
                                       readingCommit: false)
        guard case .planAnew? = store.fetchPlans[key] else { Issue.record("the shape's plan was kept"); return }
    }

    @Test func theCacheKeepsAtMostItsLimitTheOldestGoingFirst() throws {
        var cache = FetchPlanCache(limit: 3)
        func shape(_ entity: String) -> FetchPlanCache.Shape {
            FetchPlanCache.Shape(FetchRequest(entityName: entity), predicate: nil, readingCommit: false)
        }
        for name in ["A", "B", "C", "D", "E"] { cache.keep(.planAnew, for: shape(name)) }
        #expect(cache.count == 3)
        #expect(cache[shape("A")] == nil && cache[shape("B")] == nil)
        #expect(cache[shape("C")] != nil && cache[shape("D")] != nil && cache[shape("E")] != nil)
        cache.keep(.planAnew, for: shape("E"))  // kept again: nothing goes
        #expect(cache.count == 3 && cache[shape("C")] != nil)
    }

    @Test func aStoreKeepsNoMoreShapesThanItsLimitAndStillAnswersOnesThatWent() throws {
        let fixture = try songs()
        let store = fixture.store
        // `IN` lists of 1, 2, 3, … titles: one shape each.
        for length in 1...(PostgresStore.fetchShapesKept + 10) {
            let arguments: [PredicateValue] = (0..<length).map { .value(.string($0 == 0 ? "B" : "x\($0)")) }
            let list = Array(repeating: "%@", count: length).joined(separator: ", ")
            #expect(try titles(store, "title IN {\(list)}", arguments) == ["B"])
        }
        #expect(store.fetchPlans.count == PostgresStore.fetchShapesKept)
        #expect(try titles(store, "title IN {%@}", ["C"]) == ["C"])
    }
}
