import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// Fetches through indexes answer exactly as the plain scan does, over random data and requests.
@Suite struct IndexPropertyTests {
    /// Two in-memory containers holding the same random items, one with fetch indexes.
    static func containers(items: Int, seed: UInt64) throws -> (indexed: PersistentContainer, plain: PersistentContainer) {
        let indexed = try PersistentContainer.inMemory(model: IndexFixture.model(indexed: true))
        let plain = try PersistentContainer.inMemory(model: IndexFixture.model(indexed: false))
        var rng = SplitMix64(seed: seed)
        let rows = IndexFixture.items(items, &rng)
        for container in [indexed, plain] {
            let context = container.viewContext
            for row in rows { try context.insert("Item", values: row) }
            try context.save()
        }
        // Odd seeds: the indexes built from all the objects at once (as at load), not by saves.
        if seed % 2 == 1, let store = indexed.coordinator.persistentStores.first as? AtomicStore {
            store.storeIndexes.isStale = true
        }
        return (indexed, plain)
    }

    /// The `n` of each result and the sort key's values, or the error's text.
    static func answer(_ request: FetchRequest, _ container: PersistentContainer) -> (ns: [Int64], keys: [Value], error: String?) {
        do {
            let objects = try container.newContext().fetch(request)
            let ns = try objects.map { object -> Int64 in try object.get("n") }
            let keys = try request.sortDescriptors.first.map { order in try objects.map { try $0.value(forKey: order.keyPath) } } ?? []
            return (ns, keys, nil)
        } catch {
            return ([], [], "\(error)")
        }
    }

    static func sameKeys(_ a: [Value], _ b: [Value]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            (x.isNull && y.isNull) || ValueComparison.equal(x, y) || { if case .double(let p) = x, case .double(let q) = y { p.isNaN && q.isNaN } else { false } }()
        }
    }

    /// Runs `iterations` random requests on both containers and records every difference.
    static func compare(seed: UInt64, items: Int, iterations: Int) throws {
        let (indexed, plain) = try containers(items: items, seed: seed)
        var rng = SplitMix64(seed: seed &+ 1)
        var indexPlans = 0
        let store = indexed.coordinator.persistentStores.first as? AtomicStore
        for iteration in 0..<iterations {
            if iteration % 40 == 39 { try mutate(items: items, &rng, indexed, plain) }
            var request = FetchRequest(entityName: "Item", predicate: IndexFixture.predicate(&rng))
            if Bool.random(using: &rng) {
                let key = IndexFixture.keys.randomElement(using: &rng) ?? "i"
                request.sortDescriptors = [SortDescriptor(key, ascending: Bool.random(using: &rng))]
                request.fetchLimit = [0, 1, 3, 10, 50].randomElement(using: &rng) ?? 0
                request.fetchOffset = [0, 0, 2].randomElement(using: &rng) ?? 0
            }
            let a = answer(request, indexed), b = answer(request, plain)
            if let plan = try? store?.explain(request), case .index = plan.access { indexPlans += 1 }
            let context = "seed \(seed) iteration \(iteration): \(request.predicate?.description ?? "all") sorted by \(request.sortDescriptors.map(\.keyPath)) limit \(request.fetchLimit) offset \(request.fetchOffset)"
            #expect(a.error == b.error, "\(context)")
            guard a.error == nil, b.error == nil else { continue }
            // A sort over NaN (which compares as equal to everything) has no defined order:
            // where the matches hold one, only the objects are compared.
            var whole = request
            whole.fetchLimit = 0
            whole.fetchOffset = 0
            let hasNaN = answer(whole, plain).keys.contains { if case .double(let d) = $0 { d.isNaN } else { false } }
            let sorted = !request.sortDescriptors.isEmpty
            // Sorted without NaN (a sort leaves NaN where it finds it): the same keys in the same
            // order; ties may be other objects on a page.
            if sorted, !hasNaN { #expect(sameKeys(a.keys, b.keys), "\(context)") }
            // The whole answer: the same objects.
            if !sorted || (request.fetchLimit == 0 && request.fetchOffset == 0) {
                #expect(a.ns.sorted() == b.ns.sorted(), "\(context)")
            }
            #expect(Set(a.ns).count == a.ns.count, "\(context)")
        }
        // The comparison means something only if indexes answered a good share of the requests.
        #expect(indexPlans * 4 > iterations, "only \(indexPlans) of \(iterations) requests used an index")
    }

    /// The same random updates and deletes in both containers, saved: the indexes follow them.
    static func mutate(items: Int, _ rng: inout SplitMix64, _ containers: PersistentContainer...) throws {
        var changes: [(n: Int64, key: String?, value: Value)] = []
        for _ in 0..<8 {
            let n = Int64(Int.random(in: 0..<items, using: &rng))
            if Int.random(in: 0..<4, using: &rng) == 0 {
                changes.append((n, nil, .null))
            } else {
                let key = IndexFixture.keys.randomElement(using: &rng) ?? "i"
                var value = IndexFixture.pool(key).randomElement(using: &rng) ?? .null
                if key == "c", case .int(let v) = value, Int32(exactly: v) == nil { value = .int(4) }
                changes.append((n, key, value))
            }
        }
        for container in containers {
            let context = container.newContext()
            for change in changes {
                guard let object = try context.fetch(FetchRequest(entityName: "Item", predicate: .key("n") == .int(change.n))).first else { continue }
                if let key = change.key { try object.setValue(change.value, forKey: key) } else { try context.delete(object) }
            }
            try context.save()
        }
    }

    @Test func indexedFetchesAnswerAsTheScanOverRandomDataAndPredicates() throws {
        let iterations = ProcessInfo.processInfo.environment["INDEX_PROPERTY_ITERATIONS"].flatMap(Int.init) ?? 400
        for seed: UInt64 in [1, 2, 3] {
            try Self.compare(seed: seed, items: 200, iterations: iterations)
        }
    }
}
