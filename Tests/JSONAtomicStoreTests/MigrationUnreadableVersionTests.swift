import Foundation
import GraphCore
import ServerTestSupport
import Testing
@testable import JSONAtomicStore

/// A bundle version that cannot be read is skipped unless a migration would cross it.
@Suite("Migration: unreadable versions on the path")
struct MigrationUnreadableVersionTests {
    static let xcode3 = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("GraphCoreTests/Fixtures/Xcode/Xcode3.xcdatamodeld")

    static func writeStore(_ model: ObjectModel, at url: URL) throws {
        JSONAtomicStore.register()
        let coordinator = StoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: url)
        defer { coordinator.remove(store) }
        let context = ObjectContext(coordinator: coordinator)
        _ = try context.insert("Item", values: ["name": "one"])
        try context.save()
    }

    @Test("a store of a version after the unreadable one migrates to the current version")
    func aStoreAfterTheUnreadableVersionMigrates() throws {
        let bundle = try ModelBundle(contentsOf: Self.xcode3)
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        let v2 = try #require(bundle.model(named: "Old 2"))
        try Self.writeStore(v2, at: url)
        let outcome = try JSONStoreMigrator(path: url.path, versions: [v2, bundle.current], unreadableBefore: [0: ["Old"]]).migrate()
        #expect(!outcome.wasCurrent)
        #expect(try OpenStore(url, model: bundle.current, readOnly: true).store.cacheNodeCount == 1)
    }

    @Test("a migration across an unreadable version is refused by name and writes nothing")
    func aMigrationAcrossAnUnreadableVersionIsRefused() throws {
        let bundle = try ModelBundle(contentsOf: Self.xcode3)
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        let v2 = try #require(bundle.model(named: "Old 2"))
        try Self.writeStore(v2, at: url)
        let before = try Data(contentsOf: url)
        #expect(throws: StoreMigrationError.unreadableVersionOnPath(names: ["Old 2½"])) {
            try JSONStoreMigrator(path: url.path, versions: [v2, bundle.current], unreadableBefore: [1: ["Old 2½"]]).migrate()
        }
        #expect(try Data(contentsOf: url) == before)
    }
}
