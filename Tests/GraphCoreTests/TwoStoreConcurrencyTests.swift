import Dispatch
import Foundation
import Testing
@testable import GraphCore

/// One coordinator with two stores used from many threads at once: fetches of one store and of
/// both, faults, and saves that change objects of both stores together.
@Suite struct TwoStoreConcurrencyTests {
    private static let pairs = 4
    private static let rounds = 20

    @Test func fetchesFaultsAndSavesOnTwoStoresFromManyThreadsKeepEveryObjectRight() throws {
        LedgerStore.register()
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let memory = try coordinator.addPersistentStore(type: "InMemory")
        let ledger = try #require(try coordinator.addPersistentStore(type: LedgerStore.storeType) as? LedgerStore)
        // A fetch of both stores takes a while, for saves to land in the middle of it if they can.
        ledger.fetchTime = 0.001
        // Pair i: song "M<i>" in memory, song "L<i>" in the ledger; thread i adds 1 to the plays
        // of both in each of its saves, so every fetch of both stores must see them equal.
        var memoryIDs: [ObjectID] = []
        var ledgerIDs: [ObjectID] = []
        let seed = ObjectContext(coordinator: coordinator)
        for i in 0..<Self.pairs {
            let song = try seed.insert("Song", values: ["title": .string("M\(i)")])
            try seed.save()
            memoryIDs.append(song.objectID)
            ledgerIDs.append(try ledger.seed("Song", values: ["title": .string("L\(i)")]))
        }
        let memoryIDsFinal = memoryIDs, ledgerIDsFinal = ledgerIDs
        let ledgerID = ledger.identifier
        let failures = Locked<[String]>([])

        // Threads of their own (`concurrentPerform` would run only as many at once as there are cores).
        let finished = DispatchGroup()
        for thread in 0..<2 * Self.pairs {
            finished.enter()
            Thread.detachNewThread {
                do {
                    if thread < Self.pairs {
                        try Self.write(pair: thread, memory: memoryIDsFinal[thread], ledger: ledgerIDsFinal[thread], coordinator)
                    } else {
                        try Self.read(ledgerIDsFinal, ledgerIdentifier: ledgerID, coordinator, failures: failures)
                    }
                } catch {
                    failures.withLock { $0.append("thread \(thread): \(error)") }
                }
                finished.leave()
            }
        }
        finished.wait()

        #expect(failures.withLock { $0 } == [])
        let reader = ObjectContext(coordinator: coordinator)
        for id in memoryIDs + ledgerIDs {
            let song = try reader.existingObject(with: id)
            #expect(try song.get("plays") as Int == Self.rounds)
            #expect(song.version == Int64(Self.rounds) + 1)
        }
        var inMemory = FetchRequest(entityName: "Song")
        inMemory.affectedStoreIdentifiers = [memory.identifier]
        #expect(try reader.count(for: inMemory) == Self.pairs * (1 + Self.rounds))
        #expect(try reader.count(for: FetchRequest(entityName: "Song")) == Self.pairs * (2 + Self.rounds))
    }

    /// Each round: fault both songs of the pair into a new context, add 1 to both, insert a song
    /// (into the first store), and save the lot in one save across the two stores.
    private static func write(pair: Int, memory: ObjectID, ledger: ObjectID, _ coordinator: StoreCoordinator) throws {
        for round in 0..<rounds {
            let context = ObjectContext(coordinator: coordinator)
            for id in [memory, ledger] {
                let song = context.object(with: id)
                try song.set("plays", try song.get("plays") as Int + 1)
            }
            try context.insert("Song", values: ["title": .string("new \(pair)-\(round)")])
            try context.save()
        }
    }

    /// Fetches of both stores see each pair's plays equal; fetches and faults of the ledger alone work.
    private static func read(
        _ ledgerIDs: [ObjectID], ledgerIdentifier: String, _ coordinator: StoreCoordinator, failures: Locked<[String]>
    ) throws {
        for _ in 0..<rounds {
            let reader = ObjectContext(coordinator: coordinator)
            let songs = try reader.fetch(FetchRequest(entityName: "Song"))
            var plays: [String: Int] = [:]
            for song in songs { plays[try song.get("title") as String] = try song.get("plays") as Int }
            for i in 0..<pairs where plays["M\(i)"] != plays["L\(i)"] {
                failures.withLock { $0.append("a fetch saw M\(i) at \(plays["M\(i)"] ?? -1) plays but L\(i) at \(plays["L\(i)"] ?? -1)") }
            }
            var ledgerOnly = FetchRequest(entityName: "Song")
            ledgerOnly.affectedStoreIdentifiers = [ledgerIdentifier]
            let count = try ObjectContext(coordinator: coordinator).count(for: ledgerOnly)
            if count != pairs { failures.withLock { $0.append("the ledger alone counted \(count) songs") } }
            for id in ledgerIDs {
                let context = ObjectContext(coordinator: coordinator)  // kept: an object does not keep its context
                let title = try context.object(with: id).get("title") as String
                if !title.hasPrefix("L") { failures.withLock { $0.append("\(id) faulted in as \(title)") } }
            }
        }
    }
}
