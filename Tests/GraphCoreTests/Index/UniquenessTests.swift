import Foundation
import Testing
@testable import GraphCore

/// Uniqueness constraints checked when an atomic store saves.
@Suite struct UniquenessTests {
    /// People unique by e-mail and by (first, last); employees are people. With `indexed`,
    /// an index on `email` serves the check.
    /// With `ageIndex`, an index on `age` too, which no constraint uses.
    private func container(indexed: Bool, ageIndex: Bool = false, options: StoreOptions = StoreOptions()) throws -> PersistentContainer {
        let model = try ObjectModel(entities: [
            EntityDescription("Person", attributes: [
                AttributeDescription("email", .string, isOptional: true),
                AttributeDescription("first", .string, isOptional: true),
                AttributeDescription("last", .string, isOptional: true),
                AttributeDescription("age", .int32, isOptional: true),
            ], uniquenessConstraints: [["email"], ["first", "last"]],
            fetchIndexes: (indexed ? [FetchIndexDescription(name: "byEmail", elements: [.init(.property("email"))])] : [])
                + (ageIndex ? [FetchIndexDescription(name: "byAge", elements: [.init(.property("age"))])] : [])),
            EntityDescription("Employee", parent: "Person", attributes: [AttributeDescription("desk", .int32, isOptional: true)]),
        ])
        return try PersistentContainer(model: model, options: options)
    }

    @Test func aStoreKeepingOnlyTheIndexesOfUniquenessChecksStillChecksThroughThem() throws {
        let options = StoreOptions(values: [AtomicStore.fetchIndexesOption: AtomicStore.uniquenessIndexesOnly])
        let container = try container(indexed: true, ageIndex: true, options: options)
        let store = try #require(container.coordinator.persistentStores.first as? AtomicStore)
        for entity in ["Person", "Employee"] {
            #expect(store.storeIndexes.indexes(ofEntity: entity).map(\.definition.name) == ["byEmail"])
        }
        let context = container.viewContext
        let ada = try context.insert("Employee", values: ["email": "ada@example.org", "age": 36])
        try context.save()
        let other = try context.insert("Person", values: ["email": "ada@example.org", "age": 36])
        #expect(violation { try context.save() }?.objects == [ada.objectID, other.objectID])
        context.rollback()
        let byEmail = try store.explain(FetchRequest(entityName: "Employee", predicate: .key("email") == "ada@example.org"))
        #expect(byEmail.access != .scan)
        let byAge = try store.explain(FetchRequest(entityName: "Employee", predicate: .key("age") == 36))
        #expect(byAge.access == .scan)
        #expect(try context.fetch(FetchRequest(entityName: "Person", predicate: .key("age") == 36)).map(\.objectID) == [ada.objectID])

        // Without the option every declared index is kept.
        let all = try #require(try self.container(indexed: true, ageIndex: true).coordinator.persistentStores.first as? AtomicStore)
        #expect(all.storeIndexes.indexes(ofEntity: "Person").map(\.definition.name).sorted() == ["byAge", "byEmail"])
    }

    @Test func aStoreSaysWhetherItKeepsAnyIndexUnderTheOption() throws {
        let uniquenessOnly = StoreOptions(values: [AtomicStore.fetchIndexesOption: AtomicStore.uniquenessIndexesOnly])
        func keeps(indexed: Bool, ageIndex: Bool, _ options: StoreOptions = StoreOptions()) throws -> Bool {
            let container = try container(indexed: indexed, ageIndex: ageIndex, options: options)
            return try #require(container.coordinator.persistentStores.first as? AtomicStore).keepsFetchIndexes
        }
        #expect(try keeps(indexed: true, ageIndex: false, uniquenessOnly))
        #expect(try !keeps(indexed: false, ageIndex: true, uniquenessOnly), "byAge serves no constraint")
        #expect(try keeps(indexed: false, ageIndex: true))
        #expect(try !keeps(indexed: false, ageIndex: false))
    }

    @Test func anUnknownValueOfTheIndexesOptionIsRefusedByName() {
        let options = StoreOptions(values: [AtomicStore.fetchIndexesOption: "unique"])
        #expect(throws: GraphError.store("store option fetchIndexes is \"unique\"; expected \"all\" (the default) or \"uniqueness\"")) {
            _ = try container(indexed: true, options: options)
        }
        let all = StoreOptions(values: [AtomicStore.fetchIndexesOption: "all"])
        #expect(throws: Never.self) { _ = try container(indexed: true, options: all) }
    }

    private func violation(_ body: () throws -> Void) -> (entity: String, attributes: [String], values: [Value], objects: [ObjectID])? {
        do {
            try body()
        } catch let GraphError.uniquenessViolation(entity, attributes, values, objects) {
            return (entity, attributes, values, objects)
        } catch {
            Issue.record("expected a uniqueness violation, got \(error)")
        }
        return nil
    }

    @Test(arguments: [false, true])
    func aSecondObjectWithTheSameValueIsRefusedNamingBothObjects(indexed: Bool) throws {
        let container = try container(indexed: indexed)
        let context = container.viewContext
        let ada = try context.insert("Person", values: ["email": "ada@example.org"])
        try context.save()
        let other = try context.insert("Employee", values: ["email": "ada@example.org", "desk": 4])
        let found = violation { try context.save() }
        #expect(found?.entity == "Person")
        #expect(found?.attributes == ["email"])
        #expect(found?.values == ["ada@example.org"])
        #expect(found?.objects == [ada.objectID, other.objectID])
        let message = "\(GraphError.uniquenessViolation(entity: "Person", attributes: ["email"], values: ["a"], objects: [ada.objectID]))"
        #expect(message.contains("Person") && message.contains("email = \"a\"") && message.contains("nothing was saved"))
        // Nothing was saved: the store still holds one person.
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Person")) == 1)
    }

    @Test(arguments: [false, true])
    func twoClashingObjectsInOneSaveAreRefused(indexed: Bool) throws {
        let context = try container(indexed: indexed).viewContext
        let a = try context.insert("Person", values: ["first": "Grace", "last": "Hopper"])
        let b = try context.insert("Person", values: ["first": "Grace", "last": "Hopper"])
        let found = violation { try context.save() }
        #expect(found?.attributes == ["first", "last"])
        #expect(Set(found?.objects ?? []) == [a.objectID, b.objectID])
    }

    @Test(arguments: [false, true])
    func valuesFreedInTheSameSaveAndNilValuesDoNotClash(indexed: Bool) throws {
        let context = try container(indexed: indexed).viewContext
        let ada = try context.insert("Person", values: ["email": "ada@example.org", "first": "Ada"])
        let bob = try context.insert("Person", values: ["email": "bob@example.org", "first": "Ada"])  // last is nil
        try context.save()
        try ada.setValue("ada@new.example.org", forKey: "email")
        try bob.setValue("ada@example.org", forKey: "email")
        try context.delete(ada)
        try context.insert("Person", values: ["email": "ada@new.example.org"])
        try context.save()
        try bob.setValue(.string("Bob"), forKey: "first")  // an update that keeps its e-mail
        try context.save()
    }
}
