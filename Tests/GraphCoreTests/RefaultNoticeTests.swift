import Foundation
import Testing
@testable import GraphCore

/// An atomic store that records which objects contexts turned back into faults.
private final class NoticingStore: AtomicStore, @unchecked Sendable {
    var refaulted: [[ObjectID]] = []

    override func objectsDidBecomeFaults(_ ids: [ObjectID]) {
        refaulted.append(ids)
    }
}

/// A store hears of objects turned back into faults, so that it can load them together.
@Suite struct RefaultNoticeTests {
    private static func open() throws -> (StoreCoordinator, NoticingStore) {
        let name = "NoticingStore.\(UUID().uuidString)"
        StoreRegistry.register(NoticingStore.self, as: name)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        return (coordinator, try #require(try coordinator.addPersistentStore(type: name) as? NoticingStore))
    }

    @Test func aRefreshAndAMergeTellTheStoreWhichObjectsBecameFaults() throws {
        let (coordinator, store) = try Self.open()
        let writer = ObjectContext(coordinator: coordinator)
        let songs = try ["a", "b"].map { try writer.insert("Song", values: ["title": .string($0)]) }
        try writer.save()

        let reader = ObjectContext(coordinator: coordinator)
        let read = try songs.map { try reader.existingObject(with: $0.objectID) }
        try reader.refresh(read[0], mergeChanges: false)
        #expect(store.refaulted == [[songs[0].objectID]])

        _ = try read[0].value(forKey: "title")
        let saved = Locked<ContextDidSave?>(nil)
        let token = coordinator.addSaveObserver { notification in saved.withLock { $0 = notification } }
        defer { coordinator.removeSaveObserver(token) }
        for song in songs { try song.setValue(.int(5), forKey: "plays") }
        try writer.save()
        reader.mergeChanges(from: try #require(saved.withLock { $0 }))
        #expect(store.refaulted.last.map(Set.init) == Set(songs.map(\.objectID)))

        // A child context's objects are its parent's business, not the store's.
        let child = ObjectContext(parent: reader)
        let inChild = try child.existingObject(with: songs[0].objectID)
        let before = store.refaulted.count
        try child.refresh(inChild, mergeChanges: false)
        #expect(store.refaulted.count == before)
    }
}
