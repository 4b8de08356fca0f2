import Dispatch
import Foundation
import Synchronization
import Testing
@testable import GraphCore

// MARK: - Test stores

/// An atomic store whose `load()` reports a model with other entity hashes than the music model's.
private final class StoreTestsMismatchedStore: AtomicStore, @unchecked Sendable {
    override func load() throws {
        var hashes = model?.entityVersionHashes ?? [:]
        hashes["Song"] = "an older Song"
        hashes["Album"] = nil
        hashes["Playlist"] = "an entity the model does not have"
        metadata.entityVersionHashes = hashes
    }
}

/// An atomic store that "writes" by counting, and fails while `failing` is set.
private final class StoreTestsFlakyStore: AtomicStore, @unchecked Sendable {
    struct WriteFailed: Error, Equatable {}
    var failing = false
    private(set) var writes = 0
    private(set) var removedNodes: [ObjectID] = []

    override func save() throws {
        if failing { throw WriteFailed() }
        writes += 1
    }

    override func willRemoveCacheNodes(_ nodes: [ObjectSnapshot]) {
        removedNodes += nodes.map(\.objectID)
    }
}

/// An atomic store that loads a few artists, as a store read from a file would.
private final class StoreTestsPreloadedStore: AtomicStore, @unchecked Sendable {
    override func load() throws {
        guard let model, let artist = model.entity(named: "Artist") else { return }
        let nodes = (1...3).map { n in
            var values = artist.initialValues
            if let index = artist.index(ofProperty: "name") { values[index] = .string("Preloaded \(n)") }
            return ObjectSnapshot(objectID: objectID(for: artist, referenceObject: .int(Int64(n))), version: 1, values: values)
        }
        addCacheNodes(nodes)
        nextReference = 4
        metadata.entityVersionHashes = model.entityVersionHashes
    }
}

/// A store that records that it was told it is removed.
private final class StoreTestsRemovalStore: AtomicStore, @unchecked Sendable {
    static let removals = Mutex(0)
    override func willRemove() { Self.removals.withLock { $0 += 1 } }
}

/// An atomic store that takes its time to open, as one reading a large file does.
private final class StoreTestsSlowStore: AtomicStore, @unchecked Sendable {
    /// Stores opened and stores told to let go of their file, by URL.
    static let opened = Mutex<[URL: Int]>([:])
    static let removed = Mutex<[URL: Int]>([:])
    override func load() throws {
        Thread.sleep(forTimeInterval: 0.05)
        if let url { Self.opened.withLock { $0[url, default: 0] += 1 } }
    }
    override func willRemove() {
        if let url { Self.removed.withLock { $0[url, default: 0] += 1 } }
    }
}

// MARK: - Tests

/// Counts outcomes from several threads.
private final class StoreTestsOutcomes: Sendable {
    private let counts = Mutex((successes: 0, failures: 0))
    func record(success: Bool) {
        counts.withLock { success ? ($0.successes += 1) : ($0.failures += 1) }
    }
    var successes: Int { counts.withLock { $0.successes } }
    var failures: Int { counts.withLock { $0.failures } }
}

/// Store types, opening stores, atomic store saves, several stores on one coordinator, containers.
@Suite struct StoreTests {
    private func registered(_ type: PersistentStore.Type, _ name: String = #function) -> String {
        let unique = "StoreTests.\(name).\(UUID().uuidString)"
        StoreRegistry.register(type, as: unique)
        return unique
    }

    // MARK: - Registry

    @Test func theRegistryKnowsInMemoryFromTheStart() {
        #expect(StoreRegistry.storeClass(named: "InMemory") == InMemoryStore.self)
        #expect(StoreRegistry.registeredNames.contains("InMemory"))
    }

    @Test func aRegisteredStoreTypeIsFoundByItsName() throws {
        let name = registered(StoreTestsFlakyStore.self)
        #expect(StoreRegistry.storeClass(named: name) == StoreTestsFlakyStore.self)
        // Read once: tests running beside this one register names between two reads.
        let names = StoreRegistry.registeredNames
        #expect(names.contains(name))
        #expect(names == names.sorted())

        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let store = try coordinator.addPersistentStore(type: name)
        #expect(store is StoreTestsFlakyStore)
        #expect(store.metadata.storeType == name)
        #expect(store.coordinator === coordinator)
        #expect(coordinator.persistentStore(withIdentifier: store.identifier) === store)
    }

    @Test func registeringANameAgainReplacesTheClass() {
        let name = registered(StoreTestsFlakyStore.self)
        StoreRegistry.register(StoreTestsPreloadedStore.self, as: name)
        #expect(StoreRegistry.storeClass(named: name) == StoreTestsPreloadedStore.self)
    }

    @Test func anUnknownStoreTypeIsAnErrorListingTheRegisteredNames() throws {
        let name = registered(StoreTestsFlakyStore.self)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let error = #expect(throws: GraphError.self) { try coordinator.addPersistentStore(type: "NoSuchStore") }
        guard case .unknownStoreType(let type, let names)? = error else {
            Issue.record("expected unknownStoreType, got \(String(describing: error))")
            return
        }
        #expect(type == "NoSuchStore")
        #expect(names.contains("InMemory"))
        #expect(names.contains(name))
        #expect(error?.description.contains("NoSuchStore") == true)
        #expect(error?.description.contains("InMemory") == true)
        #expect(StoreRegistry.storeClass(named: "NoSuchStore") == nil)
        #expect(coordinator.persistentStores.isEmpty)
    }

    // MARK: - Opening

    @Test func aStoreWrittenForAnotherModelIsRefusedNamingTheEntities() throws {
        let name = registered(StoreTestsMismatchedStore.self)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let error = #expect(throws: GraphError.self) { try coordinator.addPersistentStore(type: name) }
        #expect(error == .modelMismatch(entities: ["Album", "Playlist", "Song"]))
        #expect(error?.description.contains("Album, Playlist, Song") == true)
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func aNewStoreTakesTheModelsVersionHashes() throws {
        let model = try MusicModel.make()
        let coordinator = StoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(type: "InMemory")
        #expect(store.metadata.entityVersionHashes == model.entityVersionHashes)
        #expect(store.metadata.modelVersionHash == model.versionHash)
        #expect(store.metadata.storeType == "InMemory")
    }

    @Test func aStoreWithMatchingHashesOpensWithItsObjects() throws {
        let name = registered(StoreTestsPreloadedStore.self)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let store = try coordinator.addPersistentStore(type: name)
        let context = ObjectContext(coordinator: coordinator)
        let artists = try context.fetch(FetchRequest(entityName: "Artist", sortDescriptors: [SortDescriptor("name")]))
        #expect(try artists.map { try $0.get("name") as String } == ["Preloaded 1", "Preloaded 2", "Preloaded 3"])
        #expect(artists.allSatisfy { $0.objectID.storeIdentifier == store.identifier })

        let added = try context.insert("Artist", values: ["name": "New"])
        try context.save()
        #expect(added.objectID.referenceObject == .int(4))
    }

    @Test func theSameURLCannotBeAddedTwice() throws {
        let name = registered(StoreTestsFlakyStore.self)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("store-tests-\(UUID().uuidString).store")
        try coordinator.addPersistentStore(type: name, at: url)
        #expect(throws: GraphError.self) { try coordinator.addPersistentStore(type: name, at: url) }
        #expect(coordinator.persistentStores.count == 1)
    }

    @Test func theSameURLAddedFromSeveralThreadsAtOnceIsAddedOnce() throws {
        let name = registered(StoreTestsSlowStore.self)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("store-tests-\(UUID().uuidString).store")
        let outcomes = StoreTestsOutcomes()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                try coordinator.addPersistentStore(type: name, at: url)
                outcomes.record(success: true)
            } catch {
                outcomes.record(success: false)
            }
        }
        #expect(outcomes.successes == 1)
        #expect(outcomes.failures == 3)
        #expect(coordinator.persistentStores.count == 1)
        // Every store opened in vain was told to let go of its file: one is left open.
        let opened = StoreTestsSlowStore.opened.withLock { $0[url] ?? 0 }
        let removed = StoreTestsSlowStore.removed.withLock { $0[url] ?? 0 }
        #expect(opened - removed == 1)
    }

    @Test func removingAStoreTellsItAndForgetsIt() throws {
        let name = registered(StoreTestsRemovalStore.self)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let store = try coordinator.addPersistentStore(type: name)
        let before = StoreTestsRemovalStore.removals.withLock { $0 }
        coordinator.remove(store)
        coordinator.remove(store)  // a second time does nothing
        #expect(StoreTestsRemovalStore.removals.withLock { $0 } == before + 1)
        #expect(coordinator.persistentStores.isEmpty)

        let context = ObjectContext(coordinator: coordinator)
        try context.insert("Song", values: ["title": "Nowhere"])
        #expect(throws: GraphError.noStore(entity: "Song")) { try context.save() }
    }

    // MARK: - Atomic store saves

    @Test func aFailedWriteLeavesTheCacheNodesExactlyAsTheyWere() throws {
        let name = registered(StoreTestsFlakyStore.self)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let store = try #require(try coordinator.addPersistentStore(type: name) as? StoreTestsFlakyStore)
        let context = ObjectContext(coordinator: coordinator)
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let kept = try context.insert("Song", values: ["title": "So What"])
        let doomed = try context.insert("Song", values: ["title": "Blue in Green"])
        try kept.setObject(album, forKey: "album")
        try doomed.setObject(album, forKey: "album")
        try context.save()
        #expect(store.writes == 1)

        let snapshot = { store.cacheNodes().sorted { $0.objectID.description < $1.objectID.description } }
        let before = snapshot()
        let nextReferenceBefore = store.nextReference

        try album.set("title", "Changed")
        try kept.set("plays", 8)
        try context.delete(doomed)
        let added = try context.insert("Song", values: ["title": "All Blues"])
        try added.setObject(album, forKey: "album")

        store.failing = true
        #expect(throws: StoreTestsFlakyStore.WriteFailed()) { try context.save() }
        #expect(snapshot() == before)
        #expect(store.cacheNodeCount == 3)
        // The new song keeps the permanent ID it was given, and no other object can get it.
        #expect(store.nextReference == nextReferenceBefore + 1)
        #expect(added.objectID.referenceObject == .int(nextReferenceBefore))
        let elsewhere = ObjectContext(coordinator: coordinator)
        let another = try elsewhere.insert("Artist", values: ["name": "Someone"])
        store.failing = false
        try elsewhere.save()
        #expect(another.objectID.referenceObject == .int(nextReferenceBefore + 1))
        store.failing = true
        #expect(throws: StoreTestsFlakyStore.WriteFailed()) { try context.save() }
        #expect(context.hasChanges)
        #expect(album.version == 1 && kept.version == 1)
        #expect(added.isInserted && doomed.isDeleted)

        // The same changes save once the store can write again.
        store.failing = false
        try context.save()
        #expect(store.writes == 3)
        #expect(!context.hasChanges)
        #expect(album.version == 2 && kept.version == 2 && added.version == 1)
        #expect(store.cacheNode(for: doomed.objectID) == nil)
        #expect(store.cacheNode(for: added.objectID)?.value(forKey: "album") == .object(album.objectID))
        #expect(store.cacheNode(for: album.objectID)?.value(forKey: "title") == "Changed")
        #expect(store.cacheNode(for: album.objectID)?.value(forKey: "songs") == .objects([kept.objectID, added.objectID]))
        #expect(store.cacheNodeCount == 4)
        #expect(try ObjectContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Song")) == 2)
    }

    @Test func aFailedFirstWriteOfNewObjectsCanBeRetried() throws {
        let name = registered(StoreTestsFlakyStore.self)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let store = try #require(try coordinator.addPersistentStore(type: name) as? StoreTestsFlakyStore)
        let context = ObjectContext(coordinator: coordinator)
        let song = try context.insert("Song", values: ["title": "Blue"])
        store.failing = true
        #expect(throws: StoreTestsFlakyStore.WriteFailed()) { try context.save() }
        #expect(store.cacheNodeCount == 0)
        #expect(song.isInserted)
        store.failing = false
        try context.save()
        #expect(store.cacheNodeCount == 1)
        #expect(store.cacheNode(for: song.objectID)?.version == 1)
        #expect(!song.objectID.isTemporary)
    }

    @Test func theStoreIsToldWhichNodesItRemoves() throws {
        let name = registered(StoreTestsFlakyStore.self)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let store = try #require(try coordinator.addPersistentStore(type: name) as? StoreTestsFlakyStore)
        let context = ObjectContext(coordinator: coordinator)
        let song = try context.insert("Song", values: ["title": "Blue"])
        try context.save()
        try context.delete(song)
        try context.save()
        #expect(store.removedNodes == [song.objectID])
    }

    @Test func aReadOnlyStoreRefusesSaves() throws {
        let name = registered(StoreTestsPreloadedStore.self)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let store = try #require(
            try coordinator.addPersistentStore(type: name, options: StoreOptions(isReadOnly: true)) as? AtomicStore)
        let context = ObjectContext(coordinator: coordinator)

        let artist = try #require(try context.fetch(FetchRequest(entityName: "Artist")).first)
        try artist.set("name", "Renamed")
        let error = #expect(throws: GraphError.self) { try context.save() }
        guard case .readOnlyStore? = error else {
            Issue.record("expected readOnlyStore, got \(String(describing: error))")
            return
        }
        #expect(store.cacheNode(for: artist.objectID)?.value(forKey: "name") != "Renamed")

        context.rollback()
        try context.insert("Artist", values: ["name": "New"])
        #expect {
            try context.save()
        } throws: { error in
            guard case GraphError.readOnlyStore = error else { return false }
            return true
        }
        #expect(store.cacheNodeCount == 3)
    }

    // MARK: - Several stores

    @Test func aFetchSpansEveryStoreOfTheCoordinator() throws {
        let name = registered(StoreTestsPreloadedStore.self)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let memory = try coordinator.addPersistentStore(type: "InMemory")
        let preloaded = try #require(try coordinator.addPersistentStore(type: name) as? AtomicStore)
        #expect(coordinator.persistentStores.map(\.identifier) == [memory.identifier, preloaded.identifier])

        let context = ObjectContext(coordinator: coordinator)
        let inserted = try context.insert("Artist", values: ["name": "In memory"])
        try context.save()
        #expect(inserted.objectID.storeIdentifier == memory.identifier)

        let reader = ObjectContext(coordinator: coordinator)
        let artists = try reader.fetch(FetchRequest(entityName: "Artist", sortDescriptors: [SortDescriptor("name")]))
        #expect(try artists.map { try $0.get("name") as String } == ["In memory", "Preloaded 1", "Preloaded 2", "Preloaded 3"])
        #expect(try reader.count(for: FetchRequest(entityName: "Artist", predicate: .key("name").beginsWith("Pre"))) == 3)

        // A change to an object of the second store is saved there.
        let second = try #require(artists.last)
        try second.set("name", "Renamed")
        try reader.save()
        #expect(preloaded.cacheNode(for: second.objectID)?.value(forKey: "name") == "Renamed")
        #expect(preloaded.cacheNode(for: second.objectID)?.version == 2)
        #expect((memory as? AtomicStore)?.cacheNodeCount == 1)
    }

    @Test func oneSaveCanTouchObjectsOfTwoStores() throws {
        let name = registered(StoreTestsPreloadedStore.self)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let memory = try #require(try coordinator.addPersistentStore(type: "InMemory") as? AtomicStore)
        let preloaded = try #require(try coordinator.addPersistentStore(type: name) as? AtomicStore)
        let context = ObjectContext(coordinator: coordinator)
        let artist = try #require(try context.fetch(FetchRequest(entityName: "Artist", predicate: .key("name") == "Preloaded 1")).first)
        let album = try context.insert("Album", values: ["title": "New album"])
        try artist.set("name", "Changed")
        try context.save()
        #expect(memory.cacheNode(for: album.objectID)?.version == 1)
        #expect(preloaded.cacheNode(for: artist.objectID)?.value(forKey: "name") == "Changed")
        #expect(artist.version == 2)
    }

    @Test func aConflictInOneStoreWritesNothingToTheOthers() throws {
        let name = registered(StoreTestsPreloadedStore.self)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let memory = try #require(try coordinator.addPersistentStore(type: "InMemory") as? AtomicStore)
        let preloaded = try #require(try coordinator.addPersistentStore(type: name) as? AtomicStore)
        let setup = ObjectContext(coordinator: coordinator)
        let album = try setup.insert("Album", values: ["title": "In memory"])
        try setup.save()

        let context = ObjectContext(coordinator: coordinator)
        let artist = try #require(try context.fetch(FetchRequest(entityName: "Artist", predicate: .key("name") == "Preloaded 1")).first)
        let other = ObjectContext(coordinator: coordinator)
        try other.existingObject(with: artist.objectID).set("name", "Changed elsewhere")
        try other.save()

        try context.existingObject(with: album.objectID).set("title", "Changed here")
        let added = try context.insert("Album", values: ["title": "New"])
        try artist.set("name", "Changed here")
        let error = #expect(throws: GraphError.self) { try context.save() }
        #expect(error == .conflict([Conflict(objectID: artist.objectID, expectedVersion: 1, currentVersion: 2)]))
        #expect(memory.cacheNode(for: album.objectID)?.value(forKey: "title") == "In memory")
        #expect(memory.cacheNode(for: album.objectID)?.version == 1)
        #expect(memory.cacheNode(for: added.objectID) == nil)
        #expect(memory.cacheNodeCount == 1)

        // Once the conflict is resolved, the same save goes through in both stores.
        try context.refresh(artist, mergeChanges: true)
        try context.save()
        #expect(memory.cacheNode(for: added.objectID)?.version == 1)
        #expect(memory.cacheNode(for: album.objectID)?.value(forKey: "title") == "Changed here")
        #expect(preloaded.cacheNode(for: artist.objectID)?.value(forKey: "name") == "Changed here")
        #expect(preloaded.cacheNode(for: artist.objectID)?.version == 3)
    }

    // MARK: - Container

    @Test func aContainerOpensAnInMemoryStoreByDefault() throws {
        let container = try PersistentContainer(model: try MusicModel.make())
        #expect(container.coordinator.persistentStores.count == 1)
        #expect(container.coordinator.persistentStores.first is InMemoryStore)
        #expect(container.viewContext.coordinator === container.coordinator)
        #expect(container.model === container.coordinator.model)
    }

    @Test func inMemoryContainersAreIndependentOfEachOther() throws {
        let first = try PersistentContainer.inMemory(model: try MusicModel.make())
        let second = try PersistentContainer.inMemory(model: try MusicModel.make())
        try first.viewContext.insert("Song", values: ["title": "Only here"])
        try first.viewContext.save()
        #expect(try first.newContext().count(for: FetchRequest(entityName: "Song")) == 1)
        #expect(try second.newContext().count(for: FetchRequest(entityName: "Song")) == 0)
    }

    @Test func aContainerOpensARegisteredStoreTypeAndRefusesAnUnknownOne() throws {
        let name = registered(StoreTestsPreloadedStore.self)
        let container = try PersistentContainer(model: try MusicModel.make(), storeType: name)
        #expect(try container.viewContext.count(for: FetchRequest(entityName: "Artist")) == 3)
        #expect(throws: GraphError.self) {
            try PersistentContainer(model: try MusicModel.make(), storeType: "NoSuchStore")
        }
        #expect(throws: GraphError.self) {
            try PersistentContainer(model: try MusicModel.make(), storeType: registered(StoreTestsMismatchedStore.self))
        }
    }

    @Test func aContainerLoadsItsModelFromAModelFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("store-tests-\(UUID().uuidString).json")
        try MusicModel.make().jsonRepresentation().write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try PersistentContainer(modelFile: url)
        #expect(container.model.entityVersionHashes == (try MusicModel.make()).entityVersionHashes)
        try container.viewContext.insert("Song", values: ["title": "From a file"])
        try container.viewContext.save()
    }

    @Test func newContextsShareTheContainersStore() throws {
        let container = try MusicModel.container()
        let writer = container.newContext()
        #expect(writer !== container.viewContext)
        #expect(writer.coordinator === container.coordinator)
        let song = try writer.insert("Song", values: ["title": "Shared"])
        try writer.save()
        #expect(try container.viewContext.existingObject(with: song.objectID).get("title") as String == "Shared")
    }

    @Test func aBackgroundContextOfTheContainerSeesTheSameStore() async throws {
        let container = try MusicModel.container()
        let background = container.newBackgroundContext()
        let id = try await background.perform { context in
            let song = try context.insert("Song", values: ["title": "Background"])
            try context.save()
            return song.objectID
        }
        #expect(try container.viewContext.existingObject(with: id).get("title") as String == "Background")
        let count = try await background.perform { try $0.count(for: FetchRequest(entityName: "Song")) }
        #expect(count == 1)
    }
}
