import Dispatch
import Foundation
import Testing
@testable import GraphCore

/// A coordinator with a fast store and a slow one: the slow store holds up only its own callers.
@Suite struct SlowStoreTests {
    /// An in-memory store first (inserts go there) and a ``LedgerStore`` second.
    private static func twoStores() throws -> (StoreCoordinator, memory: PersistentStore, ledger: LedgerStore) {
        LedgerStore.register()
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let memory = try coordinator.addPersistentStore(type: "InMemory")
        let ledger = try #require(try coordinator.addPersistentStore(type: LedgerStore.storeType) as? LedgerStore)
        return (coordinator, memory, ledger)
    }

    @Test func aContextFetchesAndSavesOnOneStoreWhileAFaultIsStalledOnAnother() throws {
        let (coordinator, memory, ledger) = try Self.twoStores()
        let slowSong = try ledger.seed("Song", values: ["title": "Slow", "plays": 3])
        let seed = ObjectContext(coordinator: coordinator)
        try seed.insert("Song", values: ["title": "Fast"])
        try seed.save()
        let memoryID = memory.identifier

        ledger.closeStall()
        let fault = Locked<Result<String, any Error>?>(nil)
        let faultDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let context = ObjectContext(coordinator: coordinator)
            let result = Result { try context.object(with: slowSong).get("title") as String }
            fault.withLock { $0 = result }
            faultDone.signal()
        }
        #expect(ledger.waitUntilStalled(seconds: 10), "the fault never reached the ledger store")

        // A second context works on the in-memory store while the fault waits.
        let work = Locked<Result<[String], any Error>?>(nil)
        let workDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result {
                let context = ObjectContext(coordinator: coordinator)
                var request = FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("title")])
                request.affectedStoreIdentifiers = [memoryID]
                guard let fast = try context.fetch(request).first else { throw GraphError.store("no song in memory") }
                try fast.set("plays", 7)
                try context.insert("Song", values: ["title": "Faster"])
                try context.save()
                let reader = ObjectContext(coordinator: coordinator)
                return try reader.fetch(request).map { try "\($0.get("title") as String) \($0.get("plays") as Int)" }
            }
            work.withLock { $0 = result }
            workDone.signal()
        }
        let workFinishedInTime = workDone.wait(timeout: .now() + 5) == .success
        let faultStillStalled = fault.withLock { $0 == nil }

        ledger.openStall()
        if !workFinishedInTime { workDone.wait() }
        faultDone.wait()

        #expect(workFinishedInTime, "the in-memory store waited for the stalled ledger store")
        #expect(faultStillStalled)
        #expect(try work.withLock { try $0?.get() } == ["Fast 7", "Faster 0"])
        #expect(try fault.withLock { try $0?.get() } == "Slow")
    }

    @Test func aFetchOfEveryStoreWaitsForTheStalledOneAndGetsBoth() throws {
        let (coordinator, _, ledger) = try Self.twoStores()
        _ = try ledger.seed("Song", values: ["title": "Slow"])
        let seed = ObjectContext(coordinator: coordinator)
        try seed.insert("Song", values: ["title": "Fast"])
        try seed.save()

        ledger.closeStall()
        let titles = Locked<Result<[String], any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result {
                let request = FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("title")])
                let reader = ObjectContext(coordinator: coordinator)
                return try reader.fetch(request).map { try $0.get("title") as String }
            }
            titles.withLock { $0 = result }
            done.signal()
        }
        #expect(ledger.waitUntilStalled(seconds: 10))
        #expect(titles.withLock { $0 == nil })
        ledger.openStall()
        done.wait()
        #expect(try titles.withLock { try $0?.get() } == ["Fast", "Slow"])
    }

    @Test func aFetchNamingAStoreTheCoordinatorDoesNotHaveFails() throws {
        let (coordinator, _, _) = try Self.twoStores()
        var request = FetchRequest(entityName: "Song")
        request.affectedStoreIdentifiers = ["NO-SUCH-STORE"]
        #expect(throws: GraphError.store("the fetch of Song names the store NO-SUCH-STORE, which this coordinator does not have")) {
            try ObjectContext(coordinator: coordinator).fetch(request)
        }
    }

    @Test func aStoreIsRemovedOnlyOnceTheCallInProgressOnItEnds() throws {
        let (coordinator, _, ledger) = try Self.twoStores()
        let id = try ledger.seed("Song", values: ["title": "Slow"])
        ledger.closeStall()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? ObjectContext(coordinator: coordinator).existingObject(with: id)
            done.signal()
        }
        #expect(ledger.waitUntilStalled(seconds: 10))
        let removed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            coordinator.remove(ledger)
            removed.signal()
        }
        #expect(removed.wait(timeout: .now() + 0.3) == .timedOut)
        ledger.openStall()
        done.wait()
        removed.wait()
        #expect(coordinator.persistentStores.count == 1)
    }
}
