import Foundation
import Testing
@testable import GraphCore

@Suite("Migration: chained versions")
struct MigrationPlanTests {
    typealias N = MigrationNodes

    /// v1: Track(name, plays int16); v2: Song(title renamed from name, plays int32, rating?);
    /// v3: Song(title, plays int64, rating, notes = "") with Album added.
    static func versions() throws -> [ObjectModel] {
        let v1 = try ObjectModel(entities: [
            EntityDescription("Track", attributes: [AttributeDescription("name", .string), AttributeDescription("plays", .int16, isOptional: true)]),
        ])
        let v2 = try ObjectModel(entities: [
            EntityDescription("Song", attributes: [
                AttributeDescription("title", .string, renamingIdentifier: "name"),
                AttributeDescription("plays", .int32, isOptional: true),
                AttributeDescription("rating", .double, isOptional: true),
            ], renamingIdentifier: "Track"),
        ])
        let v3 = try ObjectModel(entities: [
            EntityDescription("Song", attributes: [
                AttributeDescription("title", .string),
                AttributeDescription("plays", .int64, defaultValue: 0),
                AttributeDescription("rating", .double, isOptional: true),
                AttributeDescription("notes", .string, defaultValue: ""),
            ]),
            EntityDescription("Album", attributes: [AttributeDescription("title", .string)]),
        ])
        return [v1, v2, v3]
    }

    @Test("a store two versions behind goes through each version in order and keeps IDs and versions")
    func chainV1V2V3() throws {
        let versions = try Self.versions()
        let plan = try MigrationPlan(versions: versions, from: 0, labels: ["v1", "v2", "v3"])
        #expect(plan.steps.count == 2)
        let (nodes, report) = try plan.migrate([
            try N.node(versions[0], "Track", 1, version: 9, ["name": "a", "plays": 12]),
            try N.node(versions[0], "Track", 2, version: 1, ["name": "b", "plays": .null]),
        ])
        let first = try N.find(nodes, 1), second = try N.find(nodes, 2)
        #expect(first.objectID.entity === versions[2].entity(named: "Song"))
        #expect(first.objectID.storeIdentifier == N.store)
        #expect(first.version == 9 && second.version == 1)
        #expect(first.value(forKey: "title") == "a")
        #expect(first.value(forKey: "plays") == 12)
        #expect(second.value(forKey: "plays") == 0)
        #expect(second.value(forKey: "notes") == "")
        #expect(report.contains("step 1 of 2: v1 ("))
        #expect(report.contains("step 2 of 2: v2 ("))
        #expect(report.contains("entity Song (2 objects):"))
        #expect(report.contains("renamed from Track"))
        #expect(report.contains("\"title\": renamed from \"name\""))
        #expect(report.contains("\"plays\": widened from int32 to int64; made required (nil values get the default 0); default applied to 1 object"))
        #expect(report.contains("entity Album: added"))
    }

    @Test("a store at an intermediate version takes only the later steps")
    func chainFromTheMiddle() throws {
        let versions = try Self.versions()
        let plan = try MigrationPlan(versions: versions, from: 1)
        #expect(plan.steps.count == 1)
        #expect(try MigrationPlan(versions: versions, from: 2).steps.isEmpty)
    }

    @Test("a step that is not lightweight anywhere in the chain is refused")
    func chainWithARefusedStep() throws {
        var versions = try Self.versions()
        versions.append(try ObjectModel(entities: [
            EntityDescription("Song", attributes: [AttributeDescription("title", .int64)]),
        ]))
        #expect(throws: MigrationError.self) { try MigrationPlan(versions: versions, from: 0) }
    }
}
