import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// A sorted fetch with a small limit keeps a heap: the same answer as the full sort.
@Suite struct TopKSelectorTests {
    @Test func theHeapGivesTheFirstRecordsOfTheStableFullSortOverRandomData() throws {
        let model = try IndexFixture.model(indexed: false)
        let item = try #require(model.entity(named: "Item"))
        var rng = SplitMix64(seed: 11)
        let keys = IndexFixture.keys
        for round in 0..<60 {
            let count = Int.random(in: 65...600, using: &rng)
            let rows = IndexFixture.items(count, &rng)
            let records = rows.enumerated().map { n, row in
                var values = item.initialValues
                for (key, value) in row {
                    guard let index = item.index(ofProperty: key) else { continue }
                    // A sort over NaN has no defined order (NaN compares as equal to everything).
                    if case .double(let d) = value, d.isNaN { continue }
                    values[index] = value
                }
                return ObjectSnapshot(objectID: ObjectID(entity: item, storeIdentifier: "topk", reference: .int(Int64(n))), version: 1, values: values)
            }
            let descriptors = (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                SortDescriptor(keys.randomElement(using: &rng) ?? "i", ascending: Bool.random(using: &rng),
                               comparison: [.plain, .caseInsensitive].randomElement(using: &rng) ?? .plain)
            }
            let k = Int.random(in: 1...max(1, count / 8), using: &rng)
            let full = try RecordSorter<ObjectSnapshot>(descriptors, entity: item, resolve: { _ in nil }).sorted(records).prefix(k).map(\.objectID)
            let top = try TopKSelector<ObjectSnapshot>(descriptors, entity: item, resolve: { _ in nil }).first(k, of: records).map(\.objectID)
            #expect(top == Array(full), "round \(round): \(descriptors.map { "\($0.keyPath) \($0.ascending)" }) k \(k) of \(count)")
        }
    }

    @Test func aSortedFetchWithASmallLimitAnswersAsWithoutALimit() throws {
        let container = try PersistentContainer(model: IndexFixture.model(indexed: false))
        let context = container.viewContext
        for n in 0..<500 { try context.insert("Item", values: ["n": .int(Int64(n)), "u": .int(Int64((n * 37) % 101))]) }
        try context.save()
        var request = FetchRequest(entityName: "Item", sortDescriptors: [SortDescriptor("u", ascending: false), SortDescriptor("n")])
        let all = try container.newContext().fetch(request).map { try $0.get("n") as Int64 }
        request.fetchLimit = 10
        request.fetchOffset = 5
        #expect(try container.newContext().fetch(request).map { try $0.get("n") as Int64 } == Array(all[5..<15]))
    }
}
