import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// Fetches through indexes answer exactly as the plain scan does, over random data and requests.
@Suite struct IndexPropertyTests {
    /// Two in-memory containers holding the same random items, one with fetch indexes, and
    /// the IDs of each one's groups.
    static func containers(items: Int, seed: UInt64) throws -> (indexed: PersistentContainer, plain: PersistentContainer,
                                                                 groups: [ObjectIdentifier: [ObjectID]]) {
        let indexed = try PersistentContainer.inMemory(model: IndexFixture.model(indexed: true))
        let plain = try PersistentContainer.inMemory(model: IndexFixture.model(indexed: false))
        var rng = SplitMix64(seed: seed)
        let rows = IndexFixture.items(items, &rng)
        var groups: [ObjectIdentifier: [ObjectID]] = [:]
        for container in [indexed, plain] {
            groups[ObjectIdentifier(container)] = try IndexFixture.insert(rows, into: container.viewContext)
        }
        // Odd seeds: the indexes built from all the objects at once (as at load), not by saves.
        if seed % 2 == 1, let store = indexed.coordinator.persistentStores.first as? AtomicStore {
            store.storeIndexes.isStale = true
        }
        return (indexed, plain, groups)
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
        let (indexed, plain, groups) = try containers(items: items, seed: seed)
        func answer(_ request: FetchRequest, _ container: PersistentContainer) -> (ns: [Int64], keys: [Value], error: String?) {
            Self.answer(IndexFixture.bound(request, groups[ObjectIdentifier(container)] ?? []), container)
        }
        var rng = SplitMix64(seed: seed &+ 1)
        var indexPlans = 0, relationshipPlans = 0, compoundPlans = 0, compoundOrders = 0
        let store = indexed.coordinator.persistentStores.first as? AtomicStore
        for iteration in 0..<iterations {
            if iteration % 40 == 39 { try mutate(items: items, &rng, indexed, plain) }
            var request = FetchRequest(entityName: "Item", predicate: IndexFixture.predicate(&rng))
            if Bool.random(using: &rng) {
                let key = IndexFixture.sortKeys.randomElement(using: &rng) ?? "i"
                request.sortDescriptors = [SortDescriptor(key, ascending: Bool.random(using: &rng))]
                request.fetchLimit = [0, 1, 3, 10, 50].randomElement(using: &rng) ?? 0
                request.fetchOffset = [0, 0, 2].randomElement(using: &rng) ?? 0
            }
            let a = answer(request, indexed), b = answer(request, plain)
            if let plan = try? store?.explain(IndexFixture.bound(request, groups[ObjectIdentifier(indexed)] ?? [])),
               case .index(let name, let key, _) = plan.access {
                indexPlans += 1
                if name == "byG" || name == "byGI" { relationshipPlans += 1 }
                if key.contains(",") { compoundPlans += 1 }
                if key.contains(","), plan.isSortedByIndex { compoundOrders += 1 }
            }
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
        // Indexes on the relationship, compound ranges and orders read from a compound index's
        // second element took part.
        #expect(relationshipPlans * 20 > iterations && compoundPlans * 40 > iterations && compoundOrders > 0,
                "\(relationshipPlans) relationship plans, \(compoundPlans) compound, \(compoundOrders) compound orders")
    }

    /// The same random updates and deletes in both containers, saved: the indexes follow them.
    /// A group's items change through the relationship, through its inverse (a group's
    /// `items`) and when a group is deleted (its items' `g` nullified).
    static func mutate(items: Int, _ rng: inout SplitMix64, _ containers: PersistentContainer...) throws {
        enum Change {
            case set(n: Int64, key: String, value: Value)
            case delete(n: Int64)
            case moveToGroup(n: Int64, k: Int64)
            case deleteGroup(k: Int64)
        }
        var changes: [Change] = []
        for _ in 0..<8 {
            let n = Int64(Int.random(in: 0..<items, using: &rng))
            switch Int.random(in: 0..<12, using: &rng) {
            case 0...2: changes.append(.delete(n: n))
            case 3: changes.append(.moveToGroup(n: n, k: Int64(Int.random(in: 0..<IndexFixture.groupCount, using: &rng))))
            default:
                let key = IndexFixture.keys.randomElement(using: &rng) ?? "i"
                var value = IndexFixture.pool(key).randomElement(using: &rng) ?? .null
                if key == "c", case .int(let v) = value, Int32(exactly: v) == nil { value = .int(4) }
                changes.append(.set(n: n, key: key, value: value))
            }
        }
        if Int.random(in: 0..<3, using: &rng) == 0 { changes.append(.deleteGroup(k: Int64(Int.random(in: 0..<IndexFixture.groupCount, using: &rng)))) }
        for container in containers {
            let context = container.newContext()
            func item(_ n: Int64) throws -> ManagedObject? { try first("Item", "n", n, in: context) }
            func group(_ k: Int64) throws -> ManagedObject? { try first("Group", "k", k, in: context) }
            for change in changes {
                switch change {
                case .set(let n, let key, let value):
                    guard let object = try item(n) else { continue }
                    if key == "g" {
                        guard case .int(let k) = value else { try object.setObject(nil, forKey: "g"); continue }
                        try object.setObject(try group(k), forKey: "g")
                    } else {
                        try object.setValue(value, forKey: key)
                    }
                case .delete(let n):
                    if let object = try item(n) { try context.delete(object) }
                case .moveToGroup(let n, let k):
                    if let object = try item(n), let target = try group(k) { try target.add(object, toKey: "items") }
                case .deleteGroup(let k):
                    if let target = try group(k) { try context.delete(target) }
                }
            }
            try context.save()
        }
    }

    /// The first object of `entity` whose `key` is `value`.
    static func first(_ entity: String, _ key: String, _ value: Int64, in context: ObjectContext) throws -> ManagedObject? {
        let found = try context.fetch(FetchRequest(entityName: entity, predicate: .key(key) == .int(value)))
        return found.first
    }

    @Test func indexedFetchesAnswerAsTheScanOverRandomDataAndPredicates() throws {
        let iterations = ProcessInfo.processInfo.environment["INDEX_PROPERTY_ITERATIONS"].flatMap(Int.init) ?? 400
        for seed: UInt64 in [1, 2, 3] {
            try Self.compare(seed: seed, items: 200, iterations: iterations)
        }
    }
}
