import Foundation
import Testing
@testable import GraphCore

/// Sub-entities: inherited properties, fetches of a parent entity, relationships that lead
/// to an abstract entity.
@Suite struct InheritanceTests {
    /// Person.pets (cascade) → abstract Pet ← Dog ← Puppy, and Pet ← Fish; Pet.owner is inherited.
    /// Toy is unrelated.
    static func petModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Person", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("pets", destination: "Pet", inverse: "owner", toMany: true, deleteRule: .cascade),
            ]),
            EntityDescription("Pet", isAbstract: true, attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("age", .int16, defaultValue: 1),
            ], relationships: [
                RelationshipDescription("owner", destination: "Person", inverse: "pets"),
            ]),
            EntityDescription("Dog", parent: "Pet", attributes: [AttributeDescription("breed", .string, isOptional: true)]),
            EntityDescription("Puppy", parent: "Dog", attributes: [AttributeDescription("trained", .bool, defaultValue: false)]),
            EntityDescription("Fish", parent: "Pet", attributes: [AttributeDescription("water", .string, defaultValue: "fresh")]),
            EntityDescription("Toy", attributes: [AttributeDescription("name", .string)]),
        ])
    }

    final class TypedDog: ManagedObject {
        @Attribute("name") var name: String
        @Attribute("barks") var barks: Bool
    }

    final class TypedCat: ManagedObject {
        @Attribute("name") var name: String
        @Attribute("lives") var lives: Int
    }

    private func names(_ request: FetchRequest, in context: ObjectContext) throws -> [String] {
        try context.fetch(request).map { try $0.get("name") as String }
    }

    @Test func aSubEntityHasItsParentsPropertiesFirstAndItsOwnDefaults() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let dog = try context.insert("Dog", values: ["name": "Rex"])
        let cat = try context.insert("Cat", values: ["name": "Tom"])
        #expect(try dog.get("barks") as Bool == true)
        #expect(try cat.get("lives") as Int == 9)
        #expect(try cat["name"] == "Tom")
        #expect(throws: GraphError.unknownKey(entity: "Dog", key: "lives")) { _ = try dog["lives"] }
        let animal = try #require(container.model.entity(named: "Animal"))
        #expect(dog.entity.isKind(of: animal) && cat.entity.isKind(of: animal))
        #expect(!dog.entity.isKind(of: cat.entity))
        #expect(dog.entity.index(ofProperty: "name") == animal.index(ofProperty: "name"))
        #expect(cat.entity.index(ofProperty: "name") == 0)
        try context.save()
    }

    @Test func aFetchOfTheParentReturnsSavedAndUnsavedObjectsOfEverySubEntity() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        try context.insert("Dog", values: ["name": "Rex"])
        try context.insert("Cat", values: ["name": "Tom"])
        try context.save()
        try context.insert("Dog", values: ["name": "Fido"])
        try context.insert("Cat", values: ["name": "Garfield"])

        let all = FetchRequest(entityName: "Animal", sortDescriptors: [SortDescriptor("name")])
        #expect(try names(all, in: context) == ["Fido", "Garfield", "Rex", "Tom"])
        #expect(try names(all, in: container.newContext()) == ["Rex", "Tom"])
        let fOrT = FetchRequest(entityName: "Animal", predicate: Expression.key("name").beginsWith("T") || .key("name") == "Fido",
                                sortDescriptors: [SortDescriptor("name")])
        #expect(try names(fOrT, in: context) == ["Fido", "Tom"])
        #expect(try context.count(for: FetchRequest(entityName: "Animal")) == 4)
        #expect(try context.count(for: FetchRequest(entityName: "Dog")) == 2)
    }

    @Test func withoutSubEntitiesAnAbstractEntityFetchesNothing() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        try context.insert("Dog", values: ["name": "Rex"])
        try context.save()
        try context.insert("Cat", values: ["name": "Tom"])
        let request = FetchRequest(entityName: "Animal", includesSubentities: false)
        #expect(try context.fetch(request).isEmpty)
        #expect(try context.count(for: request) == 0)
        #expect(try container.newContext().fetch(request).isEmpty)
    }

    @Test func includesSubentitiesDecidesOverEveryLevelBelow() throws {
        let container = try PersistentContainer.inMemory(model: Self.petModel())
        let context = container.viewContext
        try context.insert("Dog", values: ["name": "Rex"])
        try context.insert("Puppy", values: ["name": "Bit"])
        try context.insert("Fish", values: ["name": "Nemo"])
        try context.save()
        try context.insert("Puppy", values: ["name": "Byte"])

        for reader in [context, container.newContext()] {
            let dogs = FetchRequest(entityName: "Dog", sortDescriptors: [SortDescriptor("name")])
            let pets = FetchRequest(entityName: "Pet", sortDescriptors: [SortDescriptor("name")])
            var onlyDogs = dogs
            onlyDogs.includesSubentities = false
            let unsaved = reader === context ? ["Byte"] : []
            #expect(try names(dogs, in: reader) == (["Bit"] + unsaved + ["Rex"]))
            #expect(try names(onlyDogs, in: reader) == ["Rex"])
            #expect(try names(pets, in: reader) == (["Bit"] + unsaved + ["Nemo", "Rex"]))
        }
    }

    @Test func aRelationshipToAnAbstractEntityTakesAnySubEntityAndNothingElse() throws {
        let container = try PersistentContainer.inMemory(model: Self.petModel())
        let context = container.viewContext
        let ann = try context.insert("Person", values: ["name": "Ann"])
        let rex = try context.insert("Dog", values: ["name": "Rex"])
        let bit = try context.insert("Puppy", values: ["name": "Bit"])
        let nemo = try context.insert("Fish", values: ["name": "Nemo"])
        let ball = try context.insert("Toy", values: ["name": "Ball"])

        try rex.setObject(ann, forKey: "owner")           // the inherited to-one side
        try ann.add(nemo, toKey: "pets")                   // the to-many side
        try bit.setValue(.object(ann.objectID), forKey: "owner")
        #expect(try ann.objects(forKey: "pets") == [rex, nemo, bit])
        #expect(try nemo.object(forKey: "owner") === ann)
        #expect(throws: GraphError.wrongDestination(entity: "Person", key: "pets", expected: "Pet", got: "Toy")) {
            try ann.add(ball, toKey: "pets")
        }
        try context.save()

        let reader = container.newContext()
        let people = try reader.fetch(FetchRequest(entityName: "Person", predicate: .key("pets.name") == "Nemo"))
        #expect(try people.map { try $0.get("name") as String } == ["Ann"])
        let annsPets = FetchRequest(entityName: "Pet", predicate: .key("owner.name") == "Ann", sortDescriptors: [SortDescriptor("name")])
        #expect(try names(annsPets, in: reader) == ["Bit", "Nemo", "Rex"])
        let readPets = try #require(try people.first?.objects(forKey: "pets"))
        #expect(readPets.map(\.entity.name) == ["Dog", "Fish", "Puppy"])
    }

    @Test func deleteRulesApplyToSubEntityObjects() throws {
        let container = try PersistentContainer.inMemory(model: Self.petModel())
        let context = container.viewContext
        let ann = try context.insert("Person", values: ["name": "Ann"])
        let rex = try context.insert("Dog", values: ["name": "Rex"])
        let nemo = try context.insert("Fish", values: ["name": "Nemo"])
        try ann.setObjects([rex, nemo], forKey: "pets")
        try context.save()

        try context.delete(rex)                    // nullify: Ann keeps only Nemo
        #expect(try ann.objects(forKey: "pets") == [nemo])
        try context.delete(ann)                    // cascade: Nemo goes too
        #expect(nemo.isDeleted)
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Pet")) == 0)
    }

    @Test func registeredClassesOfSubEntitiesComeBackFromAFetchOfTheParent() throws {
        let container = try MusicModel.container()
        try container.coordinator.register(TypedDog.self, forEntity: "Dog")
        try container.coordinator.register(TypedCat.self, forEntity: "Cat")
        let context = container.viewContext
        let rex = try context.insert(TypedDog.self)
        rex.name = "Rex"
        let tom = try context.insert(TypedCat.self)
        tom.name = "Tom"
        #expect(rex.barks)
        #expect(tom.lives == 9)   // an int16 attribute read as Int
        tom.lives = 8
        try context.save()

        let reader = container.newContext()
        let animals = try reader.fetch(FetchRequest(entityName: "Animal", sortDescriptors: [SortDescriptor("name")]))
        #expect(animals.count == 2)
        let dog = try #require(animals.first as? TypedDog)
        let cat = try #require(animals.last as? TypedCat)
        #expect(dog.name == "Rex")
        #expect(cat.lives == 8)
        #expect(throws: GraphError.self) { try reader.fetch(FetchRequest(entityName: "Animal"), as: TypedDog.self) }
    }

    @Test func aSubEntityObjectIDEqualsAnIDOfItsParentEntityWithTheSameReference() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let dog = try context.insert("Dog", values: ["name": "Rex"])
        let cat = try context.insert("Cat", values: ["name": "Tom"])
        try context.save()
        let animal = try #require(container.model.entity(named: "Animal"))
        let store = try #require(dog.objectID.storeIdentifier)
        let asAnimal = ObjectID(entity: animal, storeIdentifier: store, reference: dog.objectID.referenceObject)
        #expect(asAnimal == dog.objectID)
        #expect(asAnimal.hashValue == dog.objectID.hashValue)
        #expect(dog.objectID != cat.objectID)
        #expect(context.object(with: asAnimal) === dog)
    }
}
