import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// Fetches through ``SnapshotIndexes`` (the server's path) answer exactly as a scan of the
/// same snapshots, over random data, requests and changes; indexes taken before a change
/// still answer for the snapshots they were taken with.
@Suite struct SnapshotIndexPropertyTests {
    /// Every object of the container's store, as snapshots.
    static func snapshots(_ container: PersistentContainer) throws -> [ObjectID: ObjectSnapshot] {
        let store = try #require(container.coordinator.persistentStores.first as? AtomicStore)
        var found: [ObjectID: ObjectSnapshot] = [:]
        for node in store.cacheNodes() { found[node.objectID] = ObjectSnapshot(objectID: node.objectID, version: node.version, values: node.values) }
        return found
    }

    /// The `n` of each answer and the sort key's values, or the error's text: through the
    /// indexes when `indexes` is given and the planner uses one (with `budget`, only when the
    /// index answers within that many entries, as a server answers on its event loop), else
    /// by a scan.
    static func answer(_ request: FetchRequest, _ model: ObjectModel, _ objects: [ObjectID: ObjectSnapshot],
                       indexes: SnapshotIndexes?, budget: Int? = nil) -> (ns: [Int64], keys: [Value], plan: FetchPlan?, error: String?) {
        do {
            let fetch = try SnapshotFetch(request, model: model, resolve: { objects[$0] })
            let byReference = objects.values.filter { $0.objectID.entityName == "Item" }.sorted { SnapshotIndexEntry.referenceOrder($0.objectID, $1.objectID) < 0 }
            var page: [ObjectSnapshot]
            var plan: FetchPlan?
            let included = objects.isEmpty ? [] : ["Item"]
            var byEntity: [String: [ReferenceObject: ObjectSnapshot]] = [:]
            for (id, snapshot) in objects { byEntity[id.entityName, default: [:]][id.referenceObject] = snapshot }
            let table = byEntity
            let lookup: SnapshotFetch.ReferenceLookup = { entity in { table[entity]?[$0] } }
            if let indexes, let found = try budget.map({ try fetch.indexed(indexes, included: included, lookup: lookup, visitingAtMost: $0) })
                ?? fetch.indexed(indexes, included: included, lookup: lookup) {
                plan = found.plan
                page = found.plan.isSortedByIndex ? found.snapshots : try paged(request, fetch.sorted(found.snapshots.sorted {
                    SnapshotIndexEntry.referenceOrder($0.objectID, $1.objectID) < 0
                }))
            } else {
                page = try paged(request, fetch.sorted(byReference.filter { try fetch.matches($0) }))
            }
            let entity = fetch.entity
            let ns = page.map { snapshot -> Int64 in
                if case .int(let n) = snapshot.values[entity.index(ofProperty: "n") ?? 0] { n } else { -1 }
            }
            let keys = request.sortDescriptors.first.map { order in page.map { $0.values[entity.index(ofProperty: order.keyPath) ?? 0] } } ?? []
            return (ns, keys, plan, nil)
        } catch {
            return ([], [], nil, "\(error)")
        }
    }

    static func paged(_ request: FetchRequest, _ items: [ObjectSnapshot]) -> [ObjectSnapshot] {
        let start = min(request.fetchOffset, items.count)
        let end = request.fetchLimit > 0 ? start + min(request.fetchLimit, items.count - start) : items.count
        return Array(items[start..<end])
    }

    static func compare(seed: UInt64, items: Int, iterations: Int) throws {
        let model = try IndexFixture.model(indexed: true)
        let container = try PersistentContainer.inMemory(model: model)
        var rng = SplitMix64(seed: seed)
        let groups = try IndexFixture.insert(IndexFixture.items(items, &rng), into: container.viewContext)
        var objects = try snapshots(container)
        var indexes = SnapshotIndexes(model: model, snapshots: objects.values)
        var earlier: (indexes: SnapshotIndexes, objects: [ObjectID: ObjectSnapshot])?
        var indexPlans = 0, quickPlans = 0
        for iteration in 0..<iterations {
            if iteration % 40 == 39 {
                // Random changes, taken into the indexes object by object as the server does.
                earlier = (indexes, objects)
                try IndexPropertyTests.mutate(items: items, &rng, container)
                let next = try snapshots(container)
                for id in Set(objects.keys).union(next.keys) where objects[id] != next[id] {
                    indexes.apply(old: objects[id], new: next[id])
                }
                objects = next
            }
            var request = FetchRequest(entityName: "Item", predicate: IndexFixture.predicate(&rng))
            request = IndexFixture.bound(request, groups)
            if Bool.random(using: &rng) {
                request.sortDescriptors = [SortDescriptor(IndexFixture.sortKeys.randomElement(using: &rng) ?? "i", ascending: Bool.random(using: &rng))]
                request.fetchLimit = [0, 1, 3, 10, 50].randomElement(using: &rng) ?? 0
                request.fetchOffset = [0, 0, 2].randomElement(using: &rng) ?? 0
            }
            let context = "seed \(seed) iteration \(iteration): \(request.predicate?.description ?? "all") sorted by \(request.sortDescriptors.map(\.keyPath)) limit \(request.fetchLimit) offset \(request.fetchOffset)"
            var checks = [(indexes, objects)]
            if let earlier { checks.append(earlier) }
            for (kept, state) in checks {
                let a = answer(request, model, state, indexes: kept), b = answer(request, model, state, indexes: nil)
                if a.plan != nil { indexPlans += 1 }
                #expect(a.error == b.error, "\(context)")
                // A walk within a budget answers as the unbounded one, or leaves it to it.
                let budget = [1, 4, 64].randomElement(using: &rng) ?? 64
                let quick = answer(request, model, state, indexes: kept, budget: budget)
                if let plan = quick.plan {
                    quickPlans += 1
                    #expect(plan == a.plan && plan.objectsExamined <= budget, "\(context), budget \(budget)")
                    #expect(quick.ns == a.ns && quick.error == a.error, "\(context), budget \(budget)")
                }
                if let found = kept.equalityMatches(request.predicate, ofEntity: try #require(model.entity(named: "Item")), atMost: budget) {
                    #expect(found.references.count <= budget && found.plan.objectsExamined == found.references.count, "\(context)")
                    #expect(equalityNs(found.references, state) == scanNs(request, model, state), "\(context), budget \(budget)")
                }
                guard a.error == nil, b.error == nil else { continue }
                let hasNaN = state.values.contains { snapshot in
                    snapshot.objectID.entityName == "Item" && request.sortDescriptors.contains { order in
                        if case .double(let d) = snapshot.values[model.entity(named: "Item")?.index(ofProperty: order.keyPath) ?? 0] { d.isNaN } else { false }
                    }
                }
                // Ties come in reference order both ways: the same page exactly (NaN aside,
                // which a sort leaves where it finds it).
                if !hasNaN { #expect(a.ns == b.ns, "\(context)") }
                #expect(a.ns.sorted() == b.ns.sorted() || hasNaN, "\(context)")
                #expect(IndexPropertyTests.sameKeys(a.keys, b.keys) || hasNaN, "\(context)")
            }
        }
        #expect(indexPlans * 4 > iterations, "only \(indexPlans) of \(iterations) requests used an index")
        #expect(quickPlans * 20 > iterations, "only \(quickPlans) of \(iterations) requests were answered within a budget")
    }

    /// ``SnapshotIndexes/equalityMatches(_:ofEntity:atMost:)`` finds what a scan matches, or
    /// declines: over random equalities (keys with and without a plain index, constants of
    /// the key's kind and of others, folded or not) on random data, before and after changes.
    @Test func anIndexedEqualityLookedUpWithoutPlanningFindsWhatAScanMatches() throws {
        let model = try IndexFixture.model(indexed: true)
        let entity = try #require(model.entity(named: "Item"))
        for seed: UInt64 in [6, 7] {
            let container = try PersistentContainer.inMemory(model: model)
            var rng = SplitMix64(seed: seed)
            _ = try IndexFixture.insert(IndexFixture.items(300, &rng), into: container.viewContext)
            var objects = try Self.snapshots(container)
            var indexes = SnapshotIndexes(model: model, snapshots: objects.values)
            var found = 0, declined = 0, tooMany = 0
            for iteration in 0..<600 {
                if iteration % 100 == 99 {
                    try IndexPropertyTests.mutate(items: 300, &rng, container)
                    let next = try Self.snapshots(container)
                    for id in Set(objects.keys).union(next.keys) where objects[id] != next[id] { indexes.apply(old: objects[id], new: next[id]) }
                    objects = next
                }
                let key = ["i", "s", "c", "i", "s", "c", "w", "d", "t", "b", "u", "n"].randomElement(using: &rng) ?? "i"
                let pool = Int.random(in: 0..<5, using: &rng) == 0 ? IndexFixture.constants(IndexFixture.keys.randomElement(using: &rng) ?? "i")
                    : IndexFixture.constants(key)
                let options: Comparison.Options = Int.random(in: 0..<6, using: &rng) == 0 ? .caseInsensitive : []
                let predicate = GraphCore.Predicate.comparison(Comparison(.keyPath(key), .equal, .constant(pool.randomElement(using: &rng) ?? .null),
                                                                          options: options))
                let request = FetchRequest(entityName: "Item", predicate: predicate)
                let scanned = Self.scanNs(request, model, objects)
                let limit = [1, 3, 1_000].randomElement(using: &rng) ?? 1_000
                guard let matches = indexes.equalityMatches(predicate, ofEntity: entity, atMost: limit) else {
                    declined += 1
                    if ["i", "s", "c"].contains(key), options.isEmpty, let scanned, scanned.count > limit { tooMany += 1 }
                    continue
                }
                found += 1
                #expect(["i", "s", "c"].contains(key) && options.isEmpty, "seed \(seed) iteration \(iteration): \(predicate)")
                #expect(Self.equalityNs(matches.references, objects) == scanned, "seed \(seed) iteration \(iteration): \(predicate)")
            }
            #expect(found > 60 && declined > 100 && tooMany > 5, "seed \(seed): \(found) found, \(declined) declined (\(tooMany) past the limit)")
        }
    }

    /// The `n` of the objects `references` name, in reference order.
    static func equalityNs(_ references: [ReferenceObject], _ objects: [ObjectID: ObjectSnapshot]) -> [Int64] {
        var byReference: [ReferenceObject: ObjectSnapshot] = [:]
        for (id, snapshot) in objects where id.entityName == "Item" { byReference[id.referenceObject] = snapshot }
        return references.compactMap { byReference[$0] }
            .sorted { SnapshotIndexEntry.referenceOrder($0.objectID, $1.objectID) < 0 }
            .map { snapshot in
                let n = snapshot.objectID.entity.index(ofProperty: "n").map { snapshot.values[$0] }
                return if case .int(let number) = n { number } else { -1 }
            }
    }

    /// The `n` of every object a scan matches (no sort, no page), in reference order; nil
    /// when judging the predicate fails.
    static func scanNs(_ request: FetchRequest, _ model: ObjectModel, _ objects: [ObjectID: ObjectSnapshot]) -> [Int64]? {
        let all = FetchRequest(entityName: request.entityName, predicate: request.predicate)
        let scanned = answer(all, model, objects, indexes: nil)
        return scanned.error == nil ? scanned.ns : nil
    }

    @Test func fetchesThroughSnapshotIndexesAnswerAsTheScanBeforeAndAfterChanges() throws {
        let iterations = ProcessInfo.processInfo.environment["INDEX_PROPERTY_ITERATIONS"].flatMap(Int.init) ?? 400
        for seed: UInt64 in [4, 5] {
            try Self.compare(seed: seed, items: 200, iterations: iterations)
        }
    }

    /// The entities whose snapshots the indexes need: every concrete entity with an index of
    /// its own or of an ancestor; not an abstract one, not one without an index.
    @Test func theIndexedEntitiesAreTheConcreteOnesWithAnIndexOfTheirOwnOrInherited() throws {
        let json = """
            {"entities": [
              {"name": "Animal", "abstract": true, "attributes": [{"name": "name", "type": "string"}],
               "fetchIndexes": [{"name": "byName", "elements": [{"property": "name"}]}]},
              {"name": "Dog", "parent": "Animal", "attributes": [{"name": "barks", "type": "bool"}]},
              {"name": "Cat", "parent": "Animal", "attributes": [{"name": "lives", "type": "int16"}],
               "fetchIndexes": [{"name": "byLives", "elements": [{"property": "lives"}]}]},
              {"name": "Bowl", "attributes": [{"name": "size", "type": "int64"}]}]}
            """
        let model = try ObjectModel(json: Data(json.utf8), path: "animals.json")
        #expect(SnapshotIndexes.indexedEntityNames(in: model) == ["Dog", "Cat"])
        let plain = try ObjectModel(json: Data(#"{"entities": [{"name": "Bowl", "attributes": [{"name": "size", "type": "int64"}]}]}"#.utf8), path: "bowl.json")
        #expect(SnapshotIndexes.indexedEntityNames(in: plain).isEmpty)
    }
}
