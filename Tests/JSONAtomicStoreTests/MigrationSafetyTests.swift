import Foundation
import GraphCore
import ServerTestSupport
import Testing
@testable import JSONAtomicStore

/// Migrations of JSON stores that keep renamed data, never write a store that does not open,
/// and never drop data that was not accepted by name.
@Suite("Migration: safety of JSON store migrations")
struct MigrationSafetyTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/migration")
    static let renames = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("GraphCoreTests/Fixtures/Xcode/Renames.xcdatamodeld")

    /// Saves objects built by `fill` in a new store of `model` at `url`.
    static func write(_ model: ObjectModel, at url: URL, _ fill: (ObjectContext) throws -> Void) throws {
        JSONAtomicStore.register()
        let coordinator = StoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: url)
        defer { coordinator.remove(store) }
        let context = ObjectContext(coordinator: coordinator)
        try fill(context)
        try context.save()
    }

    @Test("a store migrated through elementID renames keeps the entity's objects, the attribute's values and the links")
    func renamesKeepData() throws {
        let bundle = try ModelBundle(contentsOf: Self.renames)
        let v1 = try #require(bundle.model(named: "Renames")), v2 = bundle.current
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        try Self.write(v1, at: url) { context in
            let ann = try context.insert("Person", values: ["name": "Ann", "nickname": "A"])
            let rex = try context.insert("Pet", values: ["title": "Rex"])
            try rex.setObject(ann, forKey: "owner")
        }
        let outcome = try JSONStoreMigrator(path: url.path, versions: [v1, v2]).migrate()
        #expect(outcome.report.contains("renamed from Person"), "\(outcome.report)")
        let after = try OpenStore(url, model: v2, readOnly: true)
        let humans = after.store.cacheNodes().filter { $0.objectID.entityName == "Human" }
        let pets = after.store.cacheNodes().filter { $0.objectID.entityName == "Pet" }
        #expect(humans.count == 1 && pets.count == 1)
        #expect(humans.first?.value(forKey: "fullName") == "Ann")
        #expect(humans.first?.value(forKey: "animals") == .objects(pets.map(\.objectID)))
        #expect(pets.first?.value(forKey: "keeper") == humans.first.map { Value.object($0.objectID) })
    }

    @Test("a new relationship beside a same-named one of another entity is filled with its own destination's objects and the store opens")
    func newRelationshipBesideOthersOpens() throws {
        let bundle = try ModelBundle(contentsOf: Self.fixtures.appendingPathComponent("WrongEntity.xcdatamodeld"))
        let v1 = try #require(bundle.model(named: "WrongEntity")), v2 = bundle.current
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        try Self.write(v1, at: url) { context in
            let folder = try context.insert("Folder", values: ["name": "f"])
            for index in 0..<3 {
                let note = try context.insert("Note", values: ["title": .string("n\(index)")])
                try note.setObject(folder, forKey: "folder")
                let photo = try context.insert("Photo", values: ["caption": .string("p\(index)")])
                try photo.setObject(folder, forKey: "folder")
            }
        }
        _ = try JSONStoreMigrator(path: url.path, versions: [v1, v2]).migrate()
        let after = try OpenStore(url, model: v2, readOnly: true)  // the checks `check` makes
        let folder = try #require(after.store.cacheNodes().first { $0.objectID.entityName == "Folder" })
        guard case .objects(let notes) = folder.value(forKey: "notes") else { Issue.record("no notes"); return }
        #expect(notes.count == 3 && notes.allSatisfy { $0.entityName == "Note" })
    }

    @Test("a migrated store that would not pass the store's checks never replaces the store")
    func aStoreThatFailsTheChecksIsNotWritten() throws {
        // A uniqueness constraint added over values that two objects share: inferred as
        // lightweight (no data change), but the migrated store would not open.
        let v1 = try ObjectModel(entities: [EntityDescription("Tag", attributes: [AttributeDescription("name", .string)])])
        let v2 = try ObjectModel(entities: [EntityDescription("Tag", attributes: [AttributeDescription("name", .string)],
                                                              uniquenessConstraints: [["name"]], versionHashModifier: "unique")])
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        try Self.write(v1, at: url) { context in
            _ = try context.insert("Tag", values: ["name": "same"])
            _ = try context.insert("Tag", values: ["name": "same"])
        }
        do {
            _ = try JSONStoreMigrator(path: url.path, versions: [v1, v2]).migrate()
            Issue.record("the migration was not refused")
        } catch let error as StoreMigrationError {
            guard case .migratedStoreInvalid(let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("name"), "\(reason)")
        }
        // The store is the old one still (its journal may have been folded into its file).
        #expect(try OpenStore(url, model: v1, readOnly: true).store.cacheNodeCount == 2)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    @Test("a migration that would lose data is refused with each loss named, and made when they are accepted")
    func lossesNeedAcceptance() throws {
        let v1 = try ObjectModel(entities: [
            EntityDescription("Song", attributes: [AttributeDescription("title", .string), AttributeDescription("lyrics", .string, isOptional: true)]),
            EntityDescription("Tag", attributes: [AttributeDescription("name", .string)]),
        ])
        let v2 = try ObjectModel(entities: [EntityDescription("Song", attributes: [AttributeDescription("title", .string)])])
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        try Self.write(v1, at: url) { context in
            _ = try context.insert("Song", values: ["title": "a", "lyrics": "la"])
            _ = try context.insert("Tag", values: ["name": "t"])
        }
        let before = try Data(contentsOf: url)
        #expect(throws: MigrationError.self) { try JSONStoreMigrator(path: url.path, versions: [v1, v2]).plan() }
        do {
            _ = try JSONStoreMigrator(path: url.path, versions: [v1, v2], acceptedLosses: MigrationLossAcceptance(names: ["Tag"])).migrate()
            Issue.record("the loss of Song.lyrics was not refused")
        } catch let error as MigrationError {
            #expect("\(error)".contains("attribute \"lyrics\": removed with 1 value (accept with \"Song.lyrics\")"), "\(error)")
            #expect(!"\(error)".contains("entity Tag"), "\(error)")
        }
        #expect(try Data(contentsOf: url) == before)
        let outcome = try JSONStoreMigrator(path: url.path, versions: [v1, v2],
                                            acceptedLosses: MigrationLossAcceptance(names: ["Tag", "Song.lyrics"])).migrate()
        #expect(outcome.report.contains("lost, as accepted: entity Tag: removed with its 1 object"), "\(outcome.report)")
        #expect(try OpenStore(url, model: v2, readOnly: true).store.cacheNodeCount == 1)
    }
}
