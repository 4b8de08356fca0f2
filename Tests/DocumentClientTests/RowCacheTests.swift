import GraphCore
import Testing
@testable import DocumentClient

/// RemoteStore's row cache, on its own.
@Suite struct RowCacheTests {
    private func rows(_ count: Int) throws -> [ObjectSnapshot] {
        let model = try BehaviourModel.make()
        let entity = try #require(model.entity(named: "Tag"))
        return (1...count).map { index in
            let id = ObjectID(entity: entity, storeIdentifier: "store", reference: .int(Int64(index)))
            return ObjectSnapshot(objectID: id, version: 1, values: entity.properties.map { _ in .null })
        }
    }

    @Test func aRowStoredAgainAfterItsRemovalSurvivesEvictionAsANewRow() throws {
        let snapshots = try rows(6)
        var cache = RowCache(capacity: 4, prefetchLifetime: .seconds(5))
        for snapshot in snapshots[0..<4] { cache.store(snapshot) }
        cache.remove(snapshots[0].objectID)
        cache.store(snapshots[0])          // the newest now
        cache.store(snapshots[4])          // 5 rows > 4: the oldest half goes
        #expect(cache[snapshots[0].objectID] != nil)
        #expect(cache[snapshots[1].objectID] == nil)
        #expect(cache.count <= 4)
    }

    @Test func aPrefetchedRowAnswersItsFaultOnceAndOnlyWhileFresh() throws {
        let snapshots = try rows(2)
        var cache = RowCache(capacity: 10, prefetchLifetime: .milliseconds(50))
        for snapshot in snapshots { cache.store(snapshot) }
        let start = ContinuousClock.now
        cache.markPrefetched(snapshots.map(\.objectID), at: start)
        #expect(cache.takePrefetched(snapshots[0].objectID, at: start) != nil)
        #expect(cache.takePrefetched(snapshots[0].objectID, at: start) == nil)   // once
        #expect(cache.takePrefetched(snapshots[1].objectID, at: start + .milliseconds(51)) == nil)  // stale
        #expect(cache[snapshots[1].objectID] != nil)   // still a row, for its version
    }

    @Test func aTimedOutSaveSaysItsOutcomeIsUnknown() {
        let save = DocumentClientError.timedOut(address: "127.0.0.1:7878", method: "save", seconds: 1).description
        #expect(save.contains("may or may not have been applied"))
        let fetch = DocumentClientError.timedOut(address: "127.0.0.1:7878", method: "fetch", seconds: 1).description
        #expect(!fetch.contains("may or may not"))
    }
}
