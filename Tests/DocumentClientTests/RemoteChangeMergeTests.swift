import GraphCore
import Synchronization
import Testing

/// How a context merges the changes a store reports as made by another process
/// (`StoreCoordinator.postRemoteChange`), the way it merges another context's save: here the
/// "other process" is a second context on the same in-memory coordinator, whose save is
/// reported as a remote change instead of being merged through a did-save observer.
@Suite struct RemoteChangeMergeTests {
    /// A coordinator on an in-memory store, a context that reads, and a saved song.
    private struct Fixture {
        let coordinator: StoreCoordinator
        let reader: ObjectContext
        let song: ManagedObject

        init() throws {
            coordinator = StoreCoordinator(model: try BehaviourModel.make())
            try coordinator.addPersistentStore(type: "InMemory")
            reader = ObjectContext(coordinator: coordinator)
            song = try reader.insert("Song", values: ["title": "So What", "plays": 7])
            try reader.save()
        }

        /// Another context changes the song and saves; its save is reported as a remote change.
        @discardableResult
        func remoteSave(_ change: (ManagedObject) throws -> Void) throws -> ContextDidSave {
            let other = ObjectContext(coordinator: coordinator)
            try change(other.existingObject(with: song.objectID))
            var saved = ContextDidSave()
            let token = other.addDidSaveObserver { saved = $0 }
            try other.save()
            other.removeDidSaveObserver(token)
            coordinator.postRemoteChange(saved)
            return saved
        }
    }

    @Test func aContextShowsAnotherProcesssSaveAtItsNextFetchWithoutARefresh() throws {
        let fixture = try Fixture()
        try fixture.remoteSave { try $0.set("plays", Int64(8)) }
        #expect(try fixture.song.get("plays") as Int64 == 7, "an object already read keeps its values until the context is used")
        let fetched = try fixture.reader.all("Song")
        #expect(fetched == [fixture.song])
        #expect(try fixture.song.get("plays") as Int64 == 8)
        #expect(fixture.song.version == 2)
    }

    @Test func loadingAnObjectMergesToo() throws {
        let fixture = try Fixture()
        try fixture.remoteSave { try $0.set("title", "So What (take 2)") }
        let song = try fixture.reader.existingObject(with: fixture.song.objectID)
        #expect(try song.string("title") == "So What (take 2)")
    }

    @Test func unsavedChangesStayOnTopAndTheNextSaveDoesNotConflict() throws {
        let fixture = try Fixture()
        try fixture.song.set("title", "Ours")
        try fixture.remoteSave { song in
            try song.set("plays", Int64(8))
            try song.set("title", "Theirs")
        }
        fixture.reader.mergeRemoteChanges()
        #expect(try fixture.song.string("title") == "Ours", "a property both changed: this context's change wins")
        #expect(try fixture.song.get("plays") as Int64 == 8, "a property only the other process changed: its value")
        #expect(fixture.song.version == 2)
        try fixture.reader.save()
        let fresh = try ObjectContext(coordinator: fixture.coordinator).existingObject(with: fixture.song.objectID)
        #expect(try fresh.string("title") == "Ours")
        #expect(try fresh.get("plays") as Int64 == 8)
    }

    @Test func anObjectAnotherProcessDeletedLeavesTheContext() throws {
        let fixture = try Fixture()
        let other = ObjectContext(coordinator: fixture.coordinator)
        try other.delete(other.existingObject(with: fixture.song.objectID))
        var saved = ContextDidSave()
        _ = other.addDidSaveObserver { saved = $0 }
        try other.save()
        fixture.coordinator.postRemoteChange(saved)
        #expect(try fixture.reader.all("Song").isEmpty)
        #expect(fixture.song.context == nil)
    }

    @Test func aContextThatDoesNotMergeByItselfMergesWhenAsked() throws {
        let fixture = try Fixture()
        fixture.reader.automaticallyMergesRemoteChanges = false
        try fixture.remoteSave { try $0.set("plays", Int64(8)) }
        _ = try fixture.reader.all("Song")
        #expect(try fixture.song.get("plays") as Int64 == 7)
        fixture.reader.mergeRemoteChanges()
        #expect(try fixture.song.get("plays") as Int64 == 8)
    }

    @Test func missedChangesTurnEveryUnchangedObjectIntoAFault() throws {
        let fixture = try Fixture()
        let other = try fixture.reader.insert("Song", values: ["title": "Blue in Green"])
        try fixture.reader.save()
        try other.set("title", "Blue in Green (unsaved)")
        fixture.coordinator.postRemoteChangesMissed()
        fixture.reader.mergeRemoteChanges()
        #expect(fixture.song.isFault)
        #expect(!other.isFault)
        #expect(try other.string("title") == "Blue in Green (unsaved)")
    }

    @Test func aContextFallenBehindTheKeptChangesRefreshesEverything() throws {
        let fixture = try Fixture()
        _ = try fixture.reader.all("Song")
        for _ in 0...1024 { fixture.coordinator.postRemoteChange(ContextDidSave(updated: [fixture.song.objectID])) }
        fixture.reader.mergeRemoteChanges()
        #expect(fixture.song.isFault)
    }

    @Test func observersHearOfRemoteChangesAndChildContextsMergeNothing() throws {
        let fixture = try Fixture()
        let heard = Box()
        let token = fixture.coordinator.addRemoteChangeObserver { heard.append($0) }
        let child = fixture.reader.newChildContext()
        let childSong = try child.existingObject(with: fixture.song.objectID)
        let saved = try fixture.remoteSave { try $0.set("plays", Int64(8)) }
        #expect(heard.values == [saved])
        child.mergeRemoteChanges()
        #expect(try childSong.get("plays") as Int64 == 7)
        fixture.coordinator.removeRemoteChangeObserver(token)
        fixture.coordinator.postRemoteChange(saved)
        #expect(heard.values.count == 1)
    }

    @Test func aContextMadeAfterAChangeDoesNotMergeIt() throws {
        let fixture = try Fixture()
        try fixture.remoteSave { try $0.set("plays", Int64(8)) }
        let late = ObjectContext(coordinator: fixture.coordinator)
        let song = try late.existingObject(with: fixture.song.objectID)
        try song.set("title", "Mine")
        _ = try late.all("Song")
        #expect(!song.isFault && song.hasChanges)
    }
}

/// Notifications heard on another thread.
private final class Box: Sendable {
    private let stored = Mutex<[ContextDidSave]>([])

    func append(_ value: ContextDidSave) { stored.withLock { $0.append(value) } }
    var values: [ContextDidSave] { stored.withLock { $0 } }
}
