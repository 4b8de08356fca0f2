import Foundation
import Testing
@testable import GraphCore

/// A save validates every changed object and refuses everything when anything is invalid,
/// listing all the failures at once.
@Suite struct ValidationTests {
    /// Team.members: 2 to 3 members (optional: may be empty); Crew.members: 1 or 2, required;
    /// Roster.members: required, no counts; Member.team and Member.crew: required to-one.
    static func teamModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Team", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("members", destination: "Member", inverse: "team", toMany: true,
                                        minCount: 2, maxCount: 3),
            ]),
            EntityDescription("Crew", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("members", destination: "Member", inverse: "crew", toMany: true,
                                        isOptional: false, minCount: 1, maxCount: 2),
            ]),
            EntityDescription("Roster", relationships: [
                RelationshipDescription("members", destination: "Member", inverse: "roster", toMany: true,
                                        isOptional: false),
            ]),
            EntityDescription("Member", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("team", destination: "Team", inverse: "members"),
                RelationshipDescription("crew", destination: "Crew", inverse: "members"),
                RelationshipDescription("roster", destination: "Roster", inverse: "members"),
            ]),
            EntityDescription("Badge", attributes: [AttributeDescription("code", .string)], relationships: [
                RelationshipDescription("holder", destination: "Holder", inverse: "badges", isOptional: false),
            ]),
            EntityDescription("Holder", relationships: [
                RelationshipDescription("badges", destination: "Badge", inverse: "holder", toMany: true),
            ]),
        ])
    }

    private func members(_ names: [String], in context: ObjectContext) throws -> [ManagedObject] {
        try names.map { try context.insert("Member", values: ["name": .string($0)]) }
    }

    @Test func aMissingRequiredAttributeRefusesTheSave() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        #expect(throws: GraphError.validation([ValidationFailure(objectID: song.objectID, key: "title", reason: .missingValue)])) {
            try context.save()
        }
        // Nothing was saved: the song is still inserted, under its temporary ID.
        #expect(song.isInserted)
        #expect(song.objectID.isTemporary)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Song")) == 0)

        try song.set("title", "So What")
        try context.save()
        #expect(!song.objectID.isTemporary)
    }

    @Test func everyFailureIsListedAtOnceWithItsObjectAndKey() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let first = try context.insert("Song")
        let album = try context.insert("Album")
        let fine = try context.insert("Song", values: ["title": "fine"])
        let second = try context.insert("Song", values: ["notes": "no title"])
        try fine.setObject(album, forKey: "album")

        let expected = [
            ValidationFailure(objectID: first.objectID, key: "title", reason: .missingValue),
            ValidationFailure(objectID: album.objectID, key: "title", reason: .missingValue),
            ValidationFailure(objectID: second.objectID, key: "title", reason: .missingValue),
        ]
        #expect(context.validationFailures() == expected)
        let error = #expect(throws: GraphError.self) { try context.save() }
        guard case .validation(let failures) = error else {
            Issue.record("expected a validation error, got \(String(describing: error))")
            return
        }
        #expect(failures == expected)
        let message = try #require(error).description
        #expect(message.contains("Song.title"))
        #expect(message.contains("Album.title"))
        #expect(message.contains(first.objectID.uriRepresentation))
        #expect(message.contains(second.objectID.uriRepresentation))
    }

    @Test func changedSavedObjectsAreValidatedToo() throws {
        let container = try PersistentContainer.inMemory(model: Self.teamModel())
        let context = container.viewContext
        let team = try context.insert("Team", values: ["name": "Reds"])
        try team.setObjects(members(["a", "b"], in: context), forKey: "members")
        try context.save()
        let gone = try #require(try team.objects(forKey: "members").first)
        try team.remove(gone, fromKey: "members")
        #expect(throws: GraphError.validation([
            ValidationFailure(objectID: team.objectID, key: "members", reason: .tooFew(minimum: 2, count: 1)),
        ])) { try context.save() }
    }

    @Test func aToManyBelowItsMinimumCountRefusesTheSave() throws {
        let container = try PersistentContainer.inMemory(model: Self.teamModel())
        let context = container.viewContext
        let team = try context.insert("Team", values: ["name": "Reds"])
        try team.setObjects(members(["a"], in: context), forKey: "members")
        #expect(context.validationFailures() == [
            ValidationFailure(objectID: team.objectID, key: "members", reason: .tooFew(minimum: 2, count: 1)),
        ])
        #expect(throws: GraphError.self) { try context.save() }
        try team.add(try context.insert("Member", values: ["name": "b"]), toKey: "members")
        try context.save()
    }

    @Test func aToManyAboveItsMaximumCountRefusesTheSave() throws {
        let container = try PersistentContainer.inMemory(model: Self.teamModel())
        let context = container.viewContext
        let team = try context.insert("Team", values: ["name": "Reds"])
        let four = try members(["a", "b", "c", "d"], in: context)
        try team.setObjects(four, forKey: "members")
        let expected = ValidationFailure(objectID: team.objectID, key: "members", reason: .tooMany(maximum: 3, count: 4))
        #expect(throws: GraphError.validation([expected])) { try context.save() }
        #expect(expected.description.contains("more than its maximum 3"))
        try team.remove(four[3], fromKey: "members")
        try context.save()
    }

    @Test func anEmptyOptionalToManyPassesItsMinimumCount() throws {
        let container = try PersistentContainer.inMemory(model: Self.teamModel())
        let context = container.viewContext
        try context.insert("Team", values: ["name": "Empty"])
        #expect(context.validationFailures().isEmpty)
        try context.save()
    }

    @Test func anEmptyRequiredToManyFailsItsMinimumOnly() throws {
        let container = try PersistentContainer.inMemory(model: Self.teamModel())
        let context = container.viewContext
        let crew = try context.insert("Crew", values: ["name": "Night"])
        _ = try context.insert("Roster")
        // Roster.members is required without a minimum: empty is not nil, as in Core Data.
        #expect(context.validationFailures() == [
            ValidationFailure(objectID: crew.objectID, key: "members", reason: .tooFew(minimum: 1, count: 0)),
        ])
        let member = try context.insert("Member", values: ["name": "m"])
        try crew.add(member, toKey: "members")
        try context.save()
    }

    @Test("an empty non-optional to-many without minCount saves, as Core Data saves it (a user who follows nobody)")
    func anEmptyRequiredToManyWithoutMinimumSaves() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("User", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("follows", destination: "User", inverse: "followers", toMany: true, isOptional: false),
                RelationshipDescription("followers", destination: "User", inverse: "follows", toMany: true, isOptional: false),
            ]),
        ])
        let container = try PersistentContainer.inMemory(model: model)
        let context = container.viewContext
        let loner = try context.insert("User", values: ["name": "loner"])
        #expect(context.validationFailures().isEmpty)
        try context.save()
        #expect(try loner.objects(forKey: "follows").isEmpty)
    }

    @Test func aMissingRequiredToOneRefusesTheSave() throws {
        let container = try PersistentContainer.inMemory(model: Self.teamModel())
        let context = container.viewContext
        let badge = try context.insert("Badge", values: ["code": "A1"])
        #expect(throws: GraphError.validation([ValidationFailure(objectID: badge.objectID, key: "holder", reason: .missingValue)])) {
            try context.save()
        }
        try badge.setObject(try context.insert("Holder"), forKey: "holder")
        try context.save()
    }

    @Test func aNullifyThatLeavesARequiredToOneEmptyRefusesTheSave() throws {
        let container = try PersistentContainer.inMemory(model: Self.teamModel())
        let context = container.viewContext
        let holder = try context.insert("Holder")
        let badge = try context.insert("Badge", values: ["code": "A1"])
        try badge.setObject(holder, forKey: "holder")
        try context.save()

        try context.delete(holder)
        #expect(try badge.object(forKey: "holder") == nil)
        #expect(throws: GraphError.validation([ValidationFailure(objectID: badge.objectID, key: "holder", reason: .missingValue)])) {
            try context.save()
        }
        try context.delete(badge)
        try context.save()
    }

    @Test func validationFailuresOfSeveralKindsAreReportedTogether() throws {
        let container = try PersistentContainer.inMemory(model: Self.teamModel())
        let context = container.viewContext
        let team = try context.insert("Team")
        try team.setObjects(members(["a", "b", "c", "d"], in: context), forKey: "members")
        let badge = try context.insert("Badge")
        let failures = context.validationFailures()
        #expect(failures.contains(ValidationFailure(objectID: team.objectID, key: "name", reason: .missingValue)))
        #expect(failures.contains(ValidationFailure(objectID: team.objectID, key: "members", reason: .tooMany(maximum: 3, count: 4))))
        #expect(failures.contains(ValidationFailure(objectID: badge.objectID, key: "code", reason: .missingValue)))
        #expect(failures.contains(ValidationFailure(objectID: badge.objectID, key: "holder", reason: .missingValue)))
        #expect(failures.count == 4)
    }

    @Test func aDeletedInvalidObjectIsNotValidated() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        try context.delete(song)
        #expect(context.validationFailures().isEmpty)
        try context.save()
    }

    @Test func validationFailuresPreviewsWithoutSaving() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        #expect(context.validationFailures().count == 1)
        #expect(song.isInserted && song.objectID.isTemporary)
        try song.set("title", "x")
        #expect(context.validationFailures().isEmpty)
    }
}
