import Dispatch
import Foundation
import Synchronization
import Testing
@testable import GraphCore

/// A value shared between threads.
private final class Shared<T: Sendable>: Sendable {
    private let value: Mutex<T>
    init(_ value: T) { self.value = Mutex(value) }
    func withLock<R>(_ body: (inout T) -> R) -> R { value.withLock { body(&$0) } }
}

/// Background contexts and the coordinator used from many tasks and threads at once.
@Suite struct ConcurrencyTests {
    private static let songs = FetchRequest(entityName: "Song")

    @Test func oneBackgroundContextTakesWorkFromManyTasks() async throws {
        let container = try MusicModel.container()
        let background = container.newBackgroundContext()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for n in 0..<100 {
                        try await background.perform { context in
                            _ = try context.insert("Song", values: ["title": .string("t\(task)-\(n)"), "plays": .int(Int64(n))])
                        }
                    }
                    try await background.perform { try $0.save() }
                }
            }
            try await group.waitForAll()
        }
        let pending = try await background.perform { $0.hasChanges }
        #expect(!pending)
        let counted = try await background.perform { try $0.count(for: Self.songs) }
        #expect(counted == 800)
        let reader = container.newContext()
        let all = try reader.fetch(Self.songs)
        #expect(all.count == 800)
        #expect(Set(all.map(\.objectID)).count == 800)
        #expect(try Set(all.map { try $0.get("title") as String }).count == 800)
        #expect(all.allSatisfy { $0.version == 1 && !$0.objectID.isTemporary })
    }

    @Test func manyBackgroundContextsSaveAtOnce() async throws {
        let container = try MusicModel.container()
        let ids = try await withThrowingTaskGroup(of: [ObjectID].self) { group in
            for task in 0..<8 {
                let background = container.newBackgroundContext()
                group.addTask {
                    try await background.perform { context in
                        let album = try context.insert("Album", values: ["title": .string("Album \(task)")])
                        var songs: [ManagedObject] = []
                        for n in 0..<100 {
                            let song = try context.insert("Song", values: ["title": .string("\(task)-\(n)")])
                            try song.setObject(album, forKey: "album")
                            songs.append(song)
                        }
                        try context.save()
                        return [album.objectID] + songs.map(\.objectID)
                    }
                }
            }
            var all: [ObjectID] = []
            for try await part in group { all += part }
            return all
        }
        #expect(ids.count == 808)
        #expect(Set(ids).count == 808)
        #expect(ids.allSatisfy { !$0.isTemporary })

        let reader = container.newContext()
        #expect(try reader.count(for: Self.songs) == 800)
        let albums = try reader.fetch(FetchRequest(entityName: "Album"))
        #expect(albums.count == 8)
        for album in albums {
            let songs = try album.objects(forKey: "songs")
            #expect(songs.count == 100)
            let title: String = try album.get("title")
            #expect(try songs.allSatisfy { try $0.object(forKey: "album") === album })
            #expect(try songs.allSatisfy { try ($0.get("title") as String).hasPrefix(title.replacingOccurrences(of: "Album ", with: "") + "-") })
        }
    }

    @Test func twoBackgroundContextsChangingOneObjectConflict() async throws {
        let container = try MusicModel.container()
        let seed = container.newContext()
        let song = try seed.insert("Song", values: ["title": "Blue"])
        try seed.save()
        let id = song.objectID

        let first = container.newBackgroundContext()
        let second = container.newBackgroundContext()
        // Both read before either saves.
        _ = try await first.perform { try $0.existingObject(with: id).version }
        _ = try await second.perform { try $0.existingObject(with: id).version }

        async let firstResult = Self.saveTitle("First", of: id, in: first)
        async let secondResult = Self.saveTitle("Second", of: id, in: second)
        let results = await [firstResult, secondResult]

        let winners = results.filter { $0 == nil }
        let conflicts = results.compactMap { $0 }
        #expect(winners.count == 1)
        #expect(conflicts == [.conflict([Conflict(objectID: id, expectedVersion: 1, currentVersion: 2)])])

        let reader = container.newContext()
        let stored = try reader.existingObject(with: id)
        #expect(stored.version == 2)
        let winnerTitle = results[0] == nil ? "First" : "Second"
        #expect(try stored.get("title") as String == winnerTitle)
    }

    /// Sets the title and saves; the error a save throws, or nil.
    private static func saveTitle(_ title: String, of id: ObjectID, in context: BackgroundContext) async -> GraphError? {
        do {
            try await context.perform { context in
                try context.existingObject(with: id).set("title", title)
                try context.save()
            }
            return nil
        } catch let error as GraphError {
            return error
        } catch {
            return .store("\(error)")
        }
    }

    @Test func backgroundContextsWithAMergePolicyAllKeepTheirChanges() async throws {
        let container = try MusicModel.container()
        let seed = container.newContext()
        let song = try seed.insert("Song", values: ["title": "Blue"])
        try seed.save()
        let id = song.objectID

        // Each context changes a different property of the same object; the merge policy
        // lets every save through, retrying against the store's newer version.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (key, value) in [("plays", Value.int(5)), ("rating", .double(4.5)), ("notes", .string("live"))] {
                let background = container.newBackgroundContext()
                group.addTask {
                    try await background.perform { context in
                        context.mergePolicy = .storeTrumps
                        try context.existingObject(with: id).setValue(value, forKey: key)
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        let stored = try container.newContext().existingObject(with: id)
        #expect(try stored.value(forKey: "plays") == 5)
        #expect(try stored.value(forKey: "rating") == 4.5)
        #expect(try stored.value(forKey: "notes") == "live")
        #expect(stored.version == 4)
    }

    @Test func theCoordinatorServesManyThreadsAtOnce() throws {
        let container = try MusicModel.container()
        let coordinator = container.coordinator
        let notifications = Shared(0)
        coordinator.addSaveObserver { _ in notifications.withLock { $0 += 1 } }
        let failures = Shared<[String]>([])

        DispatchQueue.concurrentPerform(iterations: 16) { thread in
            do {
                let context = ObjectContext(coordinator: coordinator)
                for n in 0..<25 {
                    let song = try context.insert("Song", values: ["title": .string("\(thread)-\(n)")])
                    try context.save()
                    try song.set("plays", n + 1)
                    try context.save()
                    _ = try context.count(for: FetchRequest(entityName: "Song", predicate: .key("plays") >= 0))
                }
                let reader = ObjectContext(coordinator: coordinator)
                let mine = try reader.fetch(FetchRequest(entityName: "Song", predicate: .key("title").beginsWith("\(thread)-")))
                if mine.count != 25 { failures.withLock { $0.append("thread \(thread) found \(mine.count) songs") } }
                if mine.contains(where: { $0.version != 2 }) {
                    failures.withLock { $0.append("thread \(thread) found a song not at version 2") }
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }

        #expect(failures.withLock { $0 } == [])
        #expect(notifications.withLock { $0 } == 16 * 25 * 2)
        let all = try container.newContext().fetch(Self.songs)
        #expect(all.count == 400)
        #expect(Set(all.map(\.objectID)).count == 400)
    }

    @Test func storesCanBeAddedWhileOtherThreadsSave() throws {
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        try coordinator.addPersistentStore(type: "InMemory")
        let failures = Shared<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            do {
                if thread % 2 == 0 {
                    try coordinator.addPersistentStore(type: "InMemory")
                    _ = coordinator.persistentStores
                } else {
                    let context = ObjectContext(coordinator: coordinator)
                    for n in 0..<20 { try context.insert("Song", values: ["title": .string("\(thread)-\(n)")]) }
                    try context.save()
                    _ = try context.fetch(Self.songs)
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(coordinator.persistentStores.count == 5)
        #expect(try ObjectContext(coordinator: coordinator).count(for: Self.songs) == 80)
    }

    @Test func aCoordinatorObserverMergesSavesIntoABackgroundContext() async throws {
        let container = try MusicModel.container()
        let seed = container.newContext()
        let song = try seed.insert("Song", values: ["title": "Blue"])
        try seed.save()
        let id = song.objectID

        let follower = container.newBackgroundContext()
        #expect(try await follower.perform { try $0.existingObject(with: id).get("title") as String } == "Blue")

        let (stream, continuation) = AsyncStream.makeStream(of: ContextDidSave.self)
        let token = container.coordinator.addSaveObserver { continuation.yield($0) }
        defer { container.coordinator.removeSaveObserver(token) }

        let writer = container.newBackgroundContext()
        try await writer.perform { context in
            try context.existingObject(with: id).set("title", "Green")
            try context.save()
        }
        var iterator = stream.makeAsyncIterator()
        let notification = try #require(await iterator.next())
        let title = try await follower.perform { context in
            context.mergeChanges(from: notification)
            return try context.existingObject(with: id).get("title") as String
        }
        #expect(title == "Green")
    }
}
