import Foundation
import Testing
@testable import GraphCore

/// Building models in code: resolution, inheritance layout, and every rule a model must satisfy.
@Suite struct ModelTests {
    /// Builds a model and returns the error it throws, or nil when it builds.
    private func buildError(_ entities: [EntityDescription]) -> ModelError? {
        do {
            _ = try ObjectModel(entities: entities)
            return nil
        } catch {
            return error
        }
    }

    /// A pair of entities with one relationship each way, for the inverse and count tests.
    private func pair(
        forward: RelationshipDescription,
        back: RelationshipDescription = RelationshipDescription("owner", destination: "A", inverse: "items")
    ) -> [EntityDescription] {
        [
            EntityDescription("A", relationships: [forward]),
            EntityDescription("B", relationships: [back]),
        ]
    }

    // MARK: - Building

    @Test func aModelBuiltInCodeKeepsTheEntitiesInTheGivenOrder() throws {
        let model = try MusicModel.make()
        #expect(model.entities.map(\.name) == ["Song", "Album", "Artist", "Composer", "Animal", "Dog", "Cat"])
        #expect(Set(model.entitiesByName.keys) == Set(model.entities.map(\.name)))
        #expect(model.entity(named: "Song")?.name == "Song")
        #expect(model.entity(named: "song") == nil)
        #expect(model.description == "model of 7 entities (Song, Album, Artist, Composer, Animal, Dog, Cat)")
        for entity in model.entities {
            #expect(entity.model === model)
        }
    }

    @Test func anEntityListsItsAttributesBeforeItsRelationships() throws {
        let model = try MusicModel.make()
        let song = try #require(model.entity(named: "Song"))
        #expect(song.properties.map(\.name) == ["title", "plays", "rating", "notes", "album", "composers"])
        #expect(song.attributes.map(\.name) == ["title", "plays", "rating", "notes"])
        #expect(song.relationships.map(\.name) == ["album", "composers"])
        #expect(song.relationshipIndices == [4, 5])
        #expect(song.index(ofProperty: "plays") == 1)
        #expect(song.index(ofProperty: "missing") == nil)
        #expect(song.property(named: "plays")?.attribute == AttributeDescription("plays", .int64, defaultValue: 0))
        #expect(song.property(named: "album")?.attribute == nil)
        #expect(song.property(named: "album")?.relationship?.destination == "Album")
    }

    @Test func relationshipsResolveToTheirDestinationAndInverse() throws {
        let model = try MusicModel.make()
        let song = try #require(model.entity(named: "Song"))
        let album = try #require(model.entity(named: "Album"))
        let composer = try #require(model.entity(named: "Composer"))
        let albumIndex = try #require(song.index(ofProperty: "album"))
        let songsIndex = try #require(album.index(ofProperty: "songs"))
        #expect(song.destination(ofPropertyAt: albumIndex) === album)
        #expect(song.inverseIndices[albumIndex] == songsIndex)
        #expect(album.destination(ofPropertyAt: songsIndex) === song)
        #expect(album.inverseIndices[songsIndex] == albumIndex)
        let composersIndex = try #require(song.index(ofProperty: "composers"))
        #expect(song.destination(ofPropertyAt: composersIndex) === composer)
        #expect(song.inverseIndices[composersIndex] == composer.index(ofProperty: "songs"))
        // Attributes have neither destination nor inverse.
        #expect(song.destinationIndices[0] == nil)
        #expect(song.inverseIndices[0] == nil)
    }

    @Test func aRelationshipWithoutAnInverseIsAllowed() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Note", relationships: [
                RelationshipDescription("seeAlso", destination: "Note", inverse: nil, toMany: true),
            ]),
        ])
        let note = try #require(model.entity(named: "Note"))
        #expect(note.destination(ofPropertyAt: 0) === note)
        #expect(note.inverseIndices[0] == nil)
    }

    @Test func aRelationshipMayBeItsOwnInverse() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Person", relationships: [
                RelationshipDescription("friends", destination: "Person", inverse: "friends", toMany: true),
            ]),
        ])
        #expect(model.entity(named: "Person")?.inverseIndices == [0])
    }

    // MARK: - Inheritance

    @Test func aSubEntityListsItsParentsPropertiesFirstAtTheSameIndex() throws {
        let model = try MusicModel.make()
        let animal = try #require(model.entity(named: "Animal"))
        let dog = try #require(model.entity(named: "Dog"))
        let cat = try #require(model.entity(named: "Cat"))
        #expect(animal.properties.map(\.name) == ["name"])
        #expect(dog.properties.map(\.name) == ["name", "barks"])
        #expect(cat.properties.map(\.name) == ["name", "lives"])
        #expect(dog.index(ofProperty: "name") == animal.index(ofProperty: "name"))
        #expect(cat.index(ofProperty: "name") == animal.index(ofProperty: "name"))
        #expect(dog.ownAttributes.map(\.name) == ["barks"])
        #expect(dog.attributes.map(\.name) == ["name", "barks"])
        #expect(dog.parent === animal)
        #expect(dog.parentName == "Animal")
        #expect(animal.parent == nil)
        #expect(animal.isAbstract)
        #expect(!dog.isAbstract)
        #expect(animal.subentityNames == ["Dog", "Cat"])
        #expect(dog.subentityNames.isEmpty)
    }

    @Test func isKindOfFollowsTheParentChain() throws {
        let model = try MusicModel.make()
        let animal = try #require(model.entity(named: "Animal"))
        let dog = try #require(model.entity(named: "Dog"))
        let cat = try #require(model.entity(named: "Cat"))
        #expect(dog.isKind(of: animal))
        #expect(dog.isKind(of: dog))
        #expect(!animal.isKind(of: dog))
        #expect(!cat.isKind(of: dog))
        #expect(dog.root === animal)
        #expect(animal.root === animal)
    }

    @Test func aDeepHierarchyIsLaidOutWhateverOrderTheEntitiesComeIn() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Puppy", parent: "Dog", attributes: [AttributeDescription("small", .bool)]),
            EntityDescription("Dog", parent: "Animal", attributes: [AttributeDescription("barks", .bool)]),
            EntityDescription("Animal", isAbstract: true, attributes: [AttributeDescription("name", .string)]),
        ])
        let puppy = try #require(model.entity(named: "Puppy"))
        #expect(puppy.properties.map(\.name) == ["name", "barks", "small"])
        #expect(puppy.index(ofProperty: "barks") == model.entity(named: "Dog")?.index(ofProperty: "barks"))
        #expect(puppy.root.name == "Animal")
        #expect(model.entities.map(\.name) == ["Puppy", "Dog", "Animal"])
    }

    @Test func anInheritedRelationshipResolvesItsInverseInTheSubEntity() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Person", relationships: [
                RelationshipDescription("pets", destination: "Animal", inverse: "owner", toMany: true),
            ]),
            EntityDescription("Animal", isAbstract: true, relationships: [
                RelationshipDescription("owner", destination: "Person", inverse: "pets"),
            ]),
            EntityDescription("Dog", parent: "Animal", attributes: [AttributeDescription("barks", .bool)]),
        ])
        let person = try #require(model.entity(named: "Person"))
        let dog = try #require(model.entity(named: "Dog"))
        let ownerIndex = try #require(dog.index(ofProperty: "owner"))
        #expect(ownerIndex == 0)
        #expect(dog.destination(ofPropertyAt: ownerIndex) === person)
        #expect(dog.inverseIndices[ownerIndex] == person.index(ofProperty: "pets"))
        #expect(dog.relationshipIndices == [0])
    }

    @Test func aFetchOfAParentEntityReturnsSubEntityObjects() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let dog = try context.insert("Dog")
        try dog.set("name", "Rex")
        let cat = try context.insert("Cat")
        try cat.set("name", "Tom")
        try context.save()
        let animals = try container.newContext().fetch(FetchRequest(entityName: "Animal"))
        #expect(animals.map(\.objectID.entityName).sorted() == ["Cat", "Dog"])
        let dogs = try container.newContext().fetch(FetchRequest(entityName: "Dog"))
        #expect(dogs.map(\.objectID.entityName) == ["Dog"])
    }

    @Test func anAbstractEntityCannotBeInserted() throws {
        let container = try MusicModel.container()
        #expect(throws: GraphError.abstractEntity("Animal")) {
            try container.viewContext.insert("Animal")
        }
    }

    // MARK: - Rules and their errors

    @Test func anEmptyEntityNameIsRefused() {
        let error = buildError([EntityDescription("")])
        #expect(error == .emptyName(entity: ""))
        #expect(error?.description == "an entity has an empty name")
    }

    @Test func anEmptyPropertyNameIsRefusedNamingTheEntity() {
        let error = buildError([EntityDescription("Song", attributes: [AttributeDescription("", .string)])])
        #expect(error == .emptyName(entity: "Song"))
        #expect(error?.description == "entity 'Song' has a property with an empty name")
    }

    @Test func aDuplicateEntityIsRefused() {
        let error = buildError([EntityDescription("Song"), EntityDescription("Album"), EntityDescription("Song")])
        #expect(error == .duplicateEntity("Song"))
        #expect(error?.description == "entity 'Song' is defined twice")
    }

    @Test func aPropertyDefinedTwiceIsRefused() {
        let error = buildError([
            EntityDescription("Song", attributes: [AttributeDescription("title", .string), AttributeDescription("title", .int64)]),
        ])
        #expect(error == .duplicateProperty(entity: "Song", property: "title"))
        #expect(error?.description.contains("'Song'") == true)
        #expect(error?.description.contains("'title'") == true)
    }

    @Test func anAttributeAndARelationshipOfTheSameNameAreRefused() {
        let error = buildError([
            EntityDescription("Song", attributes: [AttributeDescription("album", .string)], relationships: [
                RelationshipDescription("album", destination: "Song", inverse: nil),
            ]),
        ])
        #expect(error == .duplicateProperty(entity: "Song", property: "album"))
    }

    @Test func aPropertyThatRepeatsAParentsPropertyIsRefused() {
        let error = buildError([
            EntityDescription("Animal", attributes: [AttributeDescription("name", .string)]),
            EntityDescription("Dog", parent: "Animal", attributes: [AttributeDescription("name", .string)]),
        ])
        #expect(error == .duplicateProperty(entity: "Dog", property: "name"))
        #expect(error?.description == "entity 'Dog' defines property 'name' twice (or again after its parent)")
    }

    @Test func aPropertyThatRepeatsAGrandparentsPropertyIsRefused() {
        let error = buildError([
            EntityDescription("Puppy", parent: "Dog", relationships: [
                RelationshipDescription("name", destination: "Puppy", inverse: nil),
            ]),
            EntityDescription("Dog", parent: "Animal"),
            EntityDescription("Animal", attributes: [AttributeDescription("name", .string)]),
        ])
        #expect(error == .duplicateProperty(entity: "Puppy", property: "name"))
    }

    @Test func anUnknownParentIsRefused() {
        let error = buildError([EntityDescription("Dog", parent: "Animal")])
        #expect(error == .unknownParent(entity: "Dog", parent: "Animal"))
        #expect(error?.description == "entity 'Dog' names parent 'Animal', which the model does not define")
    }

    @Test func aCycleOfParentsIsRefusedNamingItsMembers() {
        let error = buildError([
            EntityDescription("A", parent: "C"),
            EntityDescription("B", parent: "A"),
            EntityDescription("C", parent: "B"),
        ])
        #expect(error == .parentCycle(["A", "C", "B", "A"]))
        #expect(error?.description == "entities A -> C -> B -> A form a cycle of parents")
    }

    @Test func anEntityThatIsItsOwnParentIsRefused() {
        let error = buildError([EntityDescription("A", parent: "A")])
        #expect(error == .parentCycle(["A", "A"]))
    }

    @Test func aCycleAboveAnEntityIsReportedFromTheCycle() {
        let error = buildError([
            EntityDescription("Leaf", parent: "A"),
            EntityDescription("A", parent: "B"),
            EntityDescription("B", parent: "A"),
        ])
        #expect(error == .parentCycle(["A", "B", "A"]))
    }

    @Test func anUnknownDestinationIsRefused() {
        let error = buildError([
            EntityDescription("Song", relationships: [RelationshipDescription("album", destination: "Album", inverse: "songs")]),
        ])
        #expect(error == .unknownDestination(entity: "Song", relationship: "album", destination: "Album"))
        #expect(error?.description == "Song.album leads to entity 'Album', which the model does not define")
    }

    @Test func anInverseTheDestinationDoesNotHaveIsRefused() {
        let error = buildError(pair(
            forward: RelationshipDescription("items", destination: "B", inverse: "parent", toMany: true)
        ))
        #expect(error == .unknownInverse(entity: "A", relationship: "items", inverse: "parent", destination: "B"))
        #expect(error?.description == "A.items names inverse 'parent', which B does not have")
    }

    @Test func anInverseThatIsAnAttributeIsRefused() {
        let error = buildError([
            EntityDescription("A", relationships: [RelationshipDescription("b", destination: "B", inverse: "label")]),
            EntityDescription("B", attributes: [AttributeDescription("label", .string)]),
        ])
        #expect(error == .unknownInverse(entity: "A", relationship: "b", inverse: "label", destination: "B"))
    }

    @Test func anInverseThatPointsElsewhereIsRefused() {
        let error = buildError([
            EntityDescription("A", relationships: [
                RelationshipDescription("items", destination: "B", inverse: "owner", toMany: true),
            ]),
            EntityDescription("B", relationships: [
                RelationshipDescription("owner", destination: "C", inverse: "items"),
            ]),
            EntityDescription("C", relationships: [
                RelationshipDescription("items", destination: "B", inverse: "owner", toMany: true),
            ]),
        ])
        #expect(error == .inverseMismatch(entity: "A", relationship: "items", inverse: "owner", pointsTo: "C.items"))
        #expect(error?.description == "A.items names inverse 'owner', but that relationship points back to C.items")
    }

    @Test func anInverseThatNamesAnotherRelationshipIsRefused() {
        let error = buildError(pair(
            forward: RelationshipDescription("items", destination: "B", inverse: "owner", toMany: true),
            back: RelationshipDescription("owner", destination: "A", inverse: "favourites")
        ))
        #expect(error == .inverseMismatch(entity: "A", relationship: "items", inverse: "owner", pointsTo: "A.favourites"))
    }

    @Test func anInverseThatDoesNotNameItsPartnerIsRefused() {
        let error = buildError(pair(
            forward: RelationshipDescription("items", destination: "B", inverse: "owner", toMany: true),
            back: RelationshipDescription("owner", destination: "A", inverse: nil)
        ))
        #expect(error == .inverseMismatch(entity: "A", relationship: "items", inverse: "owner", pointsTo: "A.(no inverse)"))
    }

    @Test func aDefaultOfTheWrongTypeIsRefused() {
        let error = buildError([
            EntityDescription("Song", attributes: [AttributeDescription("plays", .int64, defaultValue: "many")]),
        ])
        #expect(error == .invalidDefault(entity: "Song", attribute: "plays", type: .int64, reason: "got string \"many\""))
        #expect(error?.description == "Song.plays has a default value that is not a int64: got string \"many\"")
    }

    @Test func anIntegerDefaultOutsideTheAttributesRangeIsRefused() {
        let error = buildError([
            EntityDescription("Cat", attributes: [AttributeDescription("lives", .int16, defaultValue: 40_000)]),
        ])
        #expect(error == .invalidDefault(entity: "Cat", attribute: "lives", type: .int16, reason: "got integer 40000"))
    }

    @Test func aNilDefaultIsRefusedForARequiredAttributeOnly() throws {
        let error = buildError([
            EntityDescription("Song", attributes: [AttributeDescription("title", .string, defaultValue: nil as Value)]),
        ])
        #expect(error == .invalidDefault(entity: "Song", attribute: "title", type: .string,
                                         reason: "nil is not allowed for a required attribute"))
        _ = try ObjectModel(entities: [
            EntityDescription("Song", attributes: [
                AttributeDescription("notes", .string, isOptional: true, defaultValue: nil as Value),
            ]),
        ])
    }

    @Test func defaultsThatConvertWithoutLossAreAccepted() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Reading", attributes: [
                AttributeDescription("celsius", .double, defaultValue: 20),
                AttributeDescription("ratio", .float, defaultValue: 0.5),
                AttributeDescription("price", .decimal, defaultValue: 3),
                AttributeDescription("count", .int32, defaultValue: -2_147_483_648),
            ]),
        ])
        #expect(model.entity(named: "Reading")?.attributes.count == 4)
    }

    @Test func aToOneRelationshipCannotBeOrderedOrCounted() {
        let ordered = buildError([
            EntityDescription("A", relationships: [RelationshipDescription("next", destination: "A", inverse: nil, ordered: true)]),
        ])
        #expect(ordered == .invalidCount(entity: "A", relationship: "next", reason: "a to-one relationship cannot be ordered"))
        #expect(ordered?.description == "A.next: a to-one relationship cannot be ordered")
        let counted = buildError([
            EntityDescription("A", relationships: [RelationshipDescription("next", destination: "A", inverse: nil, minCount: 1)]),
        ])
        #expect(counted == .invalidCount(entity: "A", relationship: "next",
                                         reason: "minCount and maxCount apply to to-many relationships only"))
    }

    @Test(arguments: [
        (-1, nil, "minCount -1 is negative"),
        (nil, -2, "maxCount -2 is negative"),
        (3, 2, "minCount 3 is greater than maxCount 2"),
    ] as [(Int?, Int?, String)])
    func badCountsAreRefused(minCount: Int?, maxCount: Int?, reason: String) {
        let error = buildError(pair(forward: RelationshipDescription(
            "items", destination: "B", inverse: "owner", toMany: true, minCount: minCount, maxCount: maxCount)))
        #expect(error == .invalidCount(entity: "A", relationship: "items", reason: reason))
        #expect(error?.description == "A.items: \(reason)")
    }

    @Test func equalMinimumAndMaximumCountsAreAccepted() throws {
        let model = try ObjectModel(entities: pair(forward: RelationshipDescription(
            "items", destination: "B", inverse: "owner", toMany: true, minCount: 2, maxCount: 2)))
        #expect(model.entity(named: "A")?.relationships.first?.maxCount == 2)
    }

    @Test func anEntityAlreadyInAModelIsRefusedByASecondModel() throws {
        let song = EntityDescription("Song", attributes: [AttributeDescription("title", .string)])
        let first = try ObjectModel(entities: [song])
        let error = buildError([song])
        #expect(error == .entityInAnotherModel("Song"))
        #expect(error?.description.contains("'Song'") == true)
        #expect(song.model === first)
    }

    @Test func anEntityStaysInItsModelEvenAfterThatModelIsGone() throws {
        let song = EntityDescription("Song")
        do { _ = try ObjectModel(entities: [song]) }
        #expect(song.model == nil)
        #expect(buildError([song]) == .entityInAnotherModel("Song"))
    }

    @Test func everyErrorNamesTheEntityAndPropertyAtFault() {
        let errors: [ModelError] = [
            .duplicateProperty(entity: "E", property: "p"),
            .unknownType(entity: "E", property: "p", type: "t"),
            .unknownDestination(entity: "E", relationship: "p", destination: "D"),
            .unknownInverse(entity: "E", relationship: "p", inverse: "i", destination: "D"),
            .inverseMismatch(entity: "E", relationship: "p", inverse: "i", pointsTo: "D.x"),
            .invalidDefault(entity: "E", attribute: "p", type: .int16, reason: "r"),
            .invalidCount(entity: "E", relationship: "p", reason: "r"),
        ]
        for error in errors {
            #expect(error.description.contains("E"), "\(error)")
            #expect(error.description.contains("p"), "\(error)")
        }
        #expect(ModelError.unknownType(entity: "E", property: "p", type: "t").description
            == "E.p has unknown type 't' (known: int16, int32, int64, double, float, decimal, string, bool, date, binary, uuid, uri)")
    }
}
