import Foundation
import Testing
@testable import GraphCore

/// Migrations never drop data in silence: every loss is named and refused unless accepted,
/// and a new relationship is filled only with objects of its destination.
@Suite("Migration: losses and new relationships")
struct MigrationLossTests {
    typealias N = MigrationNodes

    static func v1() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Song", attributes: [AttributeDescription("title", .string), AttributeDescription("lyrics", .string, isOptional: true)],
                              relationships: [RelationshipDescription("tags", destination: "Tag", inverse: nil, toMany: true)]),
            EntityDescription("Tag", attributes: [AttributeDescription("name", .string)]),
        ])
    }
    static func v2() throws -> ObjectModel {
        try ObjectModel(entities: [EntityDescription("Song", attributes: [AttributeDescription("title", .string)])])
    }

    static func nodes(_ v1: ObjectModel) throws -> [ObjectSnapshot] {
        [
            try N.node(v1, "Song", 1, ["title": "a", "lyrics": "la", "tags": .objects([try N.id(v1, "Tag", 3), try N.id(v1, "Tag", 4)])]),
            try N.node(v1, "Song", 2, ["title": "b"]),
            try N.node(v1, "Tag", 3, ["name": "t"]),
            try N.node(v1, "Tag", 4, ["name": "u"]),
        ]
    }

    @Test("a step that drops objects, values or links is refused, naming each loss with how much")
    func lossesAreRefusedByName() throws {
        let v1 = try Self.v1(), v2 = try Self.v2()
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        let nodes = try Self.nodes(v1)
        do {
            _ = try mapping.migrate(nodes)
            Issue.record("the losses were not refused")
        } catch {
            guard case .wouldLoseData(_, _, let losses) = error else { Issue.record("\(error)"); return }
            #expect(losses == [
                MigrationLoss(entity: "Song", property: "lyrics", kind: .values, count: 1),
                MigrationLoss(entity: "Song", property: "tags", kind: .links, count: 2),
                MigrationLoss(entity: "Tag", property: nil, kind: .objects, count: 2),
            ])
            #expect(error.description.contains("entity Tag: removed with its 2 objects (accept with \"Tag\")"))
            #expect(error.description.contains("attribute \"lyrics\": removed with 1 value (accept with \"Song.lyrics\")"))
        }
    }

    @Test("losses accepted by name are made; one not named is still refused")
    func acceptedLossesAreMade() throws {
        let v1 = try Self.v1(), v2 = try Self.v2()
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        let named = MigrationLossAcceptance(names: ["Song.lyrics", "Song.tags", "Tag"])
        #expect(try mapping.migrate(try Self.nodes(v1), acceptingLosses: named).count == 2)
        #expect(throws: MigrationError.wouldLoseData(from: mapping.sourceLabel, to: mapping.destinationLabel, losses: [
            MigrationLoss(entity: "Tag", property: nil, kind: .objects, count: 2),
        ])) { try mapping.migrate(try Self.nodes(v1), acceptingLosses: MigrationLossAcceptance(names: ["Song.lyrics", "Song.tags"])) }
        let report = try MigrationPlan(steps: [mapping]).migrate(try Self.nodes(v1), acceptingLosses: .all).report
        #expect(report.contains("lost, as accepted: entity Tag: removed with its 2 objects"))
    }

    @Test("removing what holds no data, or a relationship whose inverse is kept, loses nothing")
    func emptyRemovalsAreNoLoss() throws {
        let v1 = try Self.v1(), v2 = try Self.v2()
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        #expect(try mapping.migrate([try N.node(v1, "Song", 1, ["title": "a"])]).count == 1)
        let a = try ObjectModel(entities: [
            EntityDescription("Song", attributes: [AttributeDescription("title", .string)],
                              relationships: [RelationshipDescription("album", destination: "Album", inverse: "songs")]),
            EntityDescription("Album", relationships: [RelationshipDescription("songs", destination: "Song", inverse: "album", toMany: true)]),
        ])
        let b = try ObjectModel(entities: [
            EntityDescription("Song", attributes: [AttributeDescription("title", .string)],
                              relationships: [RelationshipDescription("album", destination: "Album", inverse: nil)]),
            EntityDescription("Album"),
        ])
        let nodes = [try N.node(a, "Song", 1, ["title": "a", "album": .object(try N.id(a, "Album", 2))]),
                     try N.node(a, "Album", 2, ["songs": .objects([try N.id(a, "Song", 1)])])]
        let migrated = try MigrationMapping.infer(from: a, to: b).migrate(nodes)
        #expect(try N.find(migrated, 1).value(forKey: "album") == .object(try N.id(b, "Album", 2)))
    }

    /// The real-app case: a new `Folder.notes` whose inverse `Note.folder` exists, beside a
    /// `Photo.folder` of the same name that is not its inverse.
    @Test("a new relationship filled from its inverse holds only objects of its destination")
    func aNewRelationshipIsFilledFromItsOwnInverseOnly() throws {
        let v1 = try ObjectModel(entities: [
            EntityDescription("Folder", attributes: [AttributeDescription("name", .string)]),
            EntityDescription("Note", relationships: [RelationshipDescription("folder", destination: "Folder", inverse: nil)]),
            EntityDescription("Photo", relationships: [RelationshipDescription("folder", destination: "Folder", inverse: nil)]),
        ])
        let v2 = try ObjectModel(entities: [
            EntityDescription("Folder", attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("notes", destination: "Note", inverse: "folder", toMany: true)]),
            EntityDescription("Note", relationships: [RelationshipDescription("folder", destination: "Folder", inverse: "notes")]),
            EntityDescription("Photo", relationships: [RelationshipDescription("folder", destination: "Folder", inverse: nil)]),
        ])
        let folder = try N.id(v1, "Folder", 1)
        let migrated = try MigrationMapping.infer(from: v1, to: v2).migrate([
            try N.node(v1, "Folder", 1, ["name": "f"]),
            try N.node(v1, "Note", 2, ["folder": .object(folder)]),
            try N.node(v1, "Photo", 3, ["folder": .object(folder)]),
        ])
        #expect(try N.find(migrated, 1).value(forKey: "notes") == .objects([try N.id(v2, "Note", 2)]))
        #expect(try N.find(migrated, 3).value(forKey: "folder") == .object(try N.id(v2, "Folder", 1)))
    }
}
