import Foundation
import Testing
@testable import GraphCore

/// The opt-in merge by uniqueness constraint (`MergePolicy.objectTrumpsMergingConstraints`,
/// Core Data's `mergeByPropertyObjectTrump` on constraints): an insert matching a saved
/// object updates that object instead of failing the save.
@Suite struct MergeByConstraintTests {
    /// People unique by e-mail, each with pets (cascade) and a team (to-one).
    static func container() throws -> PersistentContainer {
        try PersistentContainer(model: try ObjectModel(entities: [
            EntityDescription("Person", attributes: [
                AttributeDescription("email", .string),
                AttributeDescription("name", .string, isOptional: true),
                AttributeDescription("age", .int64, isOptional: true),
            ], relationships: [
                RelationshipDescription("pets", destination: "Pet", inverse: "owner", toMany: true, deleteRule: .cascade),
                RelationshipDescription("team", destination: "Team", inverse: "members"),
            ], uniquenessConstraints: [["email"]]),
            EntityDescription("Pet", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("owner", destination: "Person", inverse: "pets"),
            ]),
            EntityDescription("Team", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("members", destination: "Person", inverse: "team", toMany: true),
            ]),
        ]))
    }

    /// The saved people's e-mail, name and age.
    static func people(_ container: PersistentContainer) throws -> [(email: String, name: String?, age: Int64?)] {
        let context = container.newContext()
        return try context.fetch(FetchRequest(entityName: "Person")).map { person in
            (try person.get("email"), try person.get("name"), try person.get("age"))
        }
    }

    @Test func anInsertMatchingASavedObjectUpdatesItAndItsRelatedObjectsFollow() throws {
        let container = try Self.container()
        let first = container.newContext()
        defer { withExtendedLifetime(first) {} }
        let ada = try first.insert("Person", values: ["email": "ada@example.org", "name": "Ada", "age": 36])
        let old = try first.insert("Pet", values: ["name": "Old"])
        try old.setObject(ada, forKey: "owner")
        try first.save()

        let second = container.newContext()
        second.mergePolicy = .objectTrumpsMergingConstraints
        let again = try second.insert("Person", values: ["email": "ada@example.org", "name": "Ada Lovelace"])
        let pet = try second.insert("Pet", values: ["name": "New"])
        try pet.setObject(again, forKey: "owner")
        let team = try second.insert("Team", values: ["name": "Engines"])
        try again.setObject(team, forKey: "team")
        try second.save()

        let reader = container.newContext()
        let people = try reader.fetch(FetchRequest(entityName: "Person"))
        #expect(people.count == 1)
        let person = try #require(people.first)
        #expect(person.objectID == ada.objectID)
        // The insert's values win; what it left nil keeps the saved value.
        #expect(try person.get("name") as String == "Ada Lovelace")
        #expect(try person.get("age") as Int64 == 36)
        #expect(try person.objects(forKey: "pets").map { try $0.get("name") as String }.sorted() == ["New", "Old"])
        #expect(try person.object(forKey: "team")?.get("name") as String? == "Engines")
        #expect(try container.newContext().fetch(FetchRequest(entityName: "Pet")).count == 2)
        // The inserted object left the context; the pet in it now names the saved person.
        #expect(again.context == nil || again.isDeleted)
        #expect(try pet.object(forKey: "owner")?.objectID == ada.objectID)
    }

    @Test func twoInsertsOfOneSaveSharingAConstraintBecomeOneObject() throws {
        let container = try Self.container()
        let context = container.newContext()
        context.mergePolicy = .objectTrumpsMergingConstraints
        _ = try context.insert("Person", values: ["email": "bob@example.org", "name": "Bob", "age": 40])
        _ = try context.insert("Person", values: ["email": "bob@example.org", "name": "Robert"])
        try context.save()
        let people = try Self.people(container)
        #expect(people.count == 1)
        #expect(people.first?.age == 40)
        #expect(["Bob", "Robert"].contains(people.first?.name ?? ""))
    }

    @Test func withoutThePolicyTheInsertStillFails() throws {
        let container = try Self.container()
        let context = container.newContext()
        _ = try context.insert("Person", values: ["email": "cy@example.org"])
        try context.save()
        context.mergePolicy = .objectTrumps
        _ = try context.insert("Person", values: ["email": "cy@example.org"])
        #expect(throws: GraphError.self) { try context.save() }
        #expect(try Self.people(container).count == 1)
    }
}
