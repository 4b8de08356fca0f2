import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// An atomic store whose write waits long (as a journal append on a slow disk waits for
/// `fdatasync`), so that the index upkeep runs beside it, and fails while `failing` is set.
private final class IndexUpkeepSlowStore: AtomicStore, @unchecked Sendable {
    struct WriteFailed: Error {}
    // Set by the test between saves, read by the save: the coordinator lends the store to one
    // caller at a time.
    nonisolated(unsafe) var failing = false

    override func save(changes: AtomicStoreChanges) throws {
        // Reads every node, as a journal encoder does, while the indexes take the save in.
        var sum = 0
        for node in changes.inserted + changes.updated { sum &+= node.values.count }
        usleep(15_000)
        if failing || sum < 0 { throw WriteFailed() }
    }
}

/// An atomic store whose write takes the index upkeep in itself while it "waits" (as the JSON
/// store's journal does while another thread syncs), then fails while `failing` is set.
private final class IndexUpkeepBesideStore: AtomicStore, @unchecked Sendable {
    nonisolated(unsafe) var failing = false
    /// Whether each write was handed index upkeep to run.
    nonisolated(unsafe) var handedUpkeep: [Bool] = []

    override func save(changes: AtomicStoreChanges) throws {
        handedUpkeep.append(changes.whileWriting != nil)
        changes.whileWriting?()
        if failing { throw IndexUpkeepSlowStore.WriteFailed() }
    }
}

/// The index upkeep of a save, run beside its write: a failed write leaves every index as it
/// was, and saves and fetches from many threads give the answers of a scan.
@Suite struct IndexUpkeepTests {
    private func container(besideWrite: Bool = false) throws -> PersistentContainer {
        let name = "IndexUpkeepTests.\(besideWrite ? "beside" : "slow").\(UUID().uuidString)"
        StoreRegistry.register(besideWrite ? IndexUpkeepBesideStore.self : IndexUpkeepSlowStore.self, as: name)
        return try PersistentContainer(model: IndexFixture.model(indexed: true), storeType: name)
    }

    /// Sets whether the store's next writes fail.
    private func setFailing(_ failing: Bool, _ container: PersistentContainer) {
        for store in container.coordinator.persistentStores {
            (store as? IndexUpkeepSlowStore)?.failing = failing
            (store as? IndexUpkeepBesideStore)?.failing = failing
        }
    }

    private func store(_ container: PersistentContainer) throws -> IndexUpkeepSlowStore {
        try #require(container.coordinator.persistentStores.first as? IndexUpkeepSlowStore)
    }

    /// Every index's entries in order (keys and object), with its NaN and unindexed counts.
    private static func contents(_ index: SnapshotIndex) -> [String] {
        var lines = ["nan \(index.nanCount) unindexed \(index.unindexedCount)"]
        index.walk(nil, backwards: false) { key, rest, reference in
            lines.append("\(key) \(rest) \(reference)")
            return true
        }
        return lines
    }

    /// Each index of the store's items, by name.
    private static func contents(of store: AtomicStore) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for index in store.storeIndexes.indexes(ofEntity: "Item") { result[index.definition.name] = contents(index) }
        return result
    }

    /// The indexes built afresh from the store's objects, by name.
    private static func rebuilt(_ store: AtomicStore) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for index in store.storeIndexes.indexes(ofEntity: "Item") {
            result[index.definition.name] = contents(SnapshotIndex(index.definition, snapshots: store.cacheNodes(ofEntity: "Item")))
        }
        return result
    }

    /// The names of the indexes whose contents differ (with their entry counts), for a short
    /// failure message.
    private static func differing(_ a: [String: [String]], _ b: [String: [String]]) -> [String] {
        Set(a.keys).union(b.keys).sorted().filter { a[$0] != b[$0] }.map { "\($0): \(a[$0]?.count ?? 0) against \(b[$0]?.count ?? 0) lines" }
    }

    /// With the upkeep on the worker beside a slow write, and taken in by the write itself
    /// (`whileWriting`) before it fails.
    @Test(arguments: [false, true])
    func aFailedWriteOfALargeSaveLeavesEveryIndexEntryAsItWas(besideWrite: Bool) throws {
        let container = try container(besideWrite: besideWrite)
        let store = try #require(container.coordinator.persistentStores.first as? AtomicStore)
        var rng = SplitMix64(seed: 11)
        _ = try IndexFixture.insert(IndexFixture.items(300, &rng), into: container.viewContext)
        let before = Self.contents(of: store)
        #expect(before.count == 10)
        #expect(Self.differing(before, Self.rebuilt(store)).isEmpty)

        // Inserts, updates of indexed keys (NaN and nil among them) and deletes, far above the
        // size from which the upkeep runs beside the write.
        let context = container.newContext()
        let items = try context.fetch(FetchRequest(entityName: "Item", sortDescriptors: [SortDescriptor("n")]))
        for (offset, item) in items.prefix(120).enumerated() {
            switch offset % 3 {
            case 0: try context.delete(item)
            case 1: try item.setValue(.double(offset % 2 == 0 ? .nan : Double(offset)), forKey: "d")
            default:
                try item.setValue(.int(Int64(offset)), forKey: "i")
                try item.setValue(offset % 4 == 0 ? .null : .string("moved \(offset)"), forKey: "s")
            }
        }
        for n in 1_000..<1_100 {
            try context.insert("Item", values: ["n": .int(Int64(n)), "i": .int(Int64(n % 7)), "s": .string("new \(n)"),
                                                "d": n % 10 == 0 ? .double(.nan) : .double(Double(n))])
        }
        setFailing(true, container)
        store.writeRunsUpkeep = false
        let offers = IndexUpkeepWorker.shared.offerCount
        #expect(throws: IndexUpkeepSlowStore.WriteFailed.self) { try context.save() }
        if besideWrite {
            #expect(store.writeRunsUpkeep, "the write did not take the index upkeep in")
        } else {
            #expect(IndexUpkeepWorker.shared.offerCount > offers, "the save did not run its index upkeep beside its write")
        }
        setFailing(false, container)

        #expect(Self.differing(Self.contents(of: store), before).isEmpty)
        // The same save then succeeds, and the indexes hold it.
        try context.save()
        let after = Self.contents(of: store)
        #expect(!Self.differing(after, before).isEmpty)
        #expect(Self.differing(after, Self.rebuilt(store)).isEmpty)
    }

    @Test func onlyASaveWithEnoughIndexEntriesHandsItsUpkeepToTheWrite() throws {
        let container = try container(besideWrite: true)
        let store = try #require(container.coordinator.persistentStores.first as? IndexUpkeepBesideStore)
        let context = container.newContext()
        // 10 indexes take each item: 6 items are 60 entries, 7 are 70.
        for count in [1, 6, 7, 50] {
            for n in 0..<count { try context.insert("Item", values: ["n": .int(Int64(n)), "i": .int(Int64(n))]) }
            try context.save()
        }
        #expect(IndexUpkeep.besideWriteThreshold == 64)
        #expect(store.handedUpkeep == [false, false, true, true])
        #expect(Self.differing(Self.contents(of: store), Self.rebuilt(store)).isEmpty)
    }

    @Test func savesAndFetchesFromManyThreadsOnAStoreWithIndexesGiveTheAnswersOfAScan() throws {
        let container = try container()
        let store = try store(container)
        let threads = 4, rounds = 8
        let offers = IndexUpkeepWorker.shared.offerCount
        let failures = Locked<[String]>([])
        let coordinator = container.coordinator
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            // Each thread owns the items whose `u` is its number: it knows what they hold, and
            // nobody else changes them.
            let context = ObjectContext(coordinator: coordinator)
            var expected: [Int64: Int64] = [:]  // n -> i
            var rng = SplitMix64(seed: UInt64(thread + 1))
            do {
                for round in 0..<rounds {
                    for k in 0..<40 {
                        let n = Int64(thread * 100_000 + round * 100 + k)
                        let i = Int64(Int.random(in: 0..<5, using: &rng))
                        try context.insert("Item", values: ["n": .int(n), "i": .int(i), "u": .int(Int64(thread))])
                        expected[n] = i
                    }
                    let mine = try context.fetch(FetchRequest(entityName: "Item", predicate: .key("u") == .int(Int64(thread))))
                    for object in mine where Int.random(in: 0..<4, using: &rng) == 0 {
                        let n: Int64 = try object.get("n")
                        if Bool.random(using: &rng) {
                            try context.delete(object)
                            expected[n] = nil
                        } else {
                            let i = Int64(Int.random(in: 0..<5, using: &rng))
                            try object.setValue(.int(i), forKey: "i")
                            expected[n] = i
                        }
                    }
                    try context.save()
                    context.reset()
                    for i: Int64 in 0..<5 {
                        let request = FetchRequest(entityName: "Item", predicate: .key("i") == .int(i) && .key("u") == .int(Int64(thread)))
                        let found = try context.fetch(request).map { object -> Int64 in try object.get("n") }.sorted()
                        let wanted = expected.filter { $0.value == i }.map(\.key).sorted()
                        if found != wanted {
                            failures.withLock { $0.append("thread \(thread) round \(round) i == \(i): \(found.count) found, \(wanted.count) expected") }
                        }
                    }
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(IndexUpkeepWorker.shared.offerCount > offers, "no save ran its index upkeep beside its write")
        #expect(try store.explain(FetchRequest(entityName: "Item", predicate: .key("i") == 1 && .key("u") == 0)).access != .scan)
        #expect(Self.differing(Self.contents(of: store), Self.rebuilt(store)).isEmpty)
    }
}
