import GraphCore
import Testing
@testable import DocumentClient

/// RemoteStore's queue of faults to load ahead, on its own.
@Suite struct FaultQueueTests {
    private func ids(_ count: Int) throws -> [ObjectID] {
        let entity = try #require(try BehaviourModel.make().entity(named: "Tag"))
        return (1...count).map { ObjectID(entity: entity, storeIdentifier: "store", reference: .int(Int64($0))) }
    }

    @Test func theFaultsAfterTheOneThatFiresComeFirstThenTheOnesBefore() throws {
        let all = try ids(10)
        var queue = FaultQueue(capacity: 100)
        for id in all { queue.append(id) }
        let batch = queue.take(after: all[6], limit: 4) { _ in true }
        #expect(batch == [all[7], all[8], all[9], all[0]])
        #expect(queue.count == 6)   // all[6] itself stays until the store removes it
        #expect(queue.take(after: all[6], limit: 10) { $0 != all[1] } == [all[2], all[3], all[4], all[5]])
    }

    @Test func pastItsCapacityTheQueueForgetsItsOldestHalf() throws {
        let all = try ids(5_000)
        var queue = FaultQueue(capacity: 1_000)
        for id in all { queue.append(id) }
        #expect(queue.count <= 1_000)
        let batch = queue.take(after: all[4_999], limit: 1_000) { _ in true }
        #expect(batch.last == all[4_998])          // the newest are kept, in order
        #expect(!batch.contains(all[0]))
        let references = batch.map(\.referenceObject.description).compactMap { Int($0) }
        #expect(references == references.sorted())  // in the order they were met
    }
}
