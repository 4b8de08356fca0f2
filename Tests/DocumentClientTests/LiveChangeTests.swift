import DocumentClient
import Foundation
import GraphCore
import JSONCore
import ServerTestSupport
import Synchronization
import Testing

/// Live changes against the real server: `DocumentClient.changes` as an async sequence, a
/// context over `RemoteStore` that shows another process's save without a refresh, and the
/// change feed across languages (a Swift subscriber sees a Python save, a Python subscriber a
/// Swift `RemoteStore` save).
@Suite(.timeLimit(.minutes(1))) struct LiveChangeTests {
    /// A client of `server` that says `hello` as `name`.
    private static func client(_ server: SampleModelServer, name: String = "watcher") -> DocumentClient {
        DocumentClient(configuration: ClientConfiguration(host: server.server.host, port: Int(server.server.port), clientName: name))
    }

    /// The number of the server's latest commit, read on a new connection.
    private static func latestSeq(_ server: SampleModelServer) async throws -> Int64 {
        let client = client(server, name: "probe")
        defer { client.shutdownInBackground() }
        return try #require(try await client.hello().seq)
    }

    /// The remote changes a coordinator hears of, as an async sequence.
    private static func remoteChanges(of context: ObjectContext) -> AsyncStream<ContextDidSave> {
        let (stream, continuation) = AsyncStream.makeStream(of: ContextDidSave.self)
        let token = context.coordinator.addRemoteChangeObserver { continuation.yield($0) }
        let coordinator = context.coordinator
        continuation.onTermination = { _ in coordinator.removeRemoteChangeObserver(token) }
        return stream
    }

    @Test func changesYieldsEachCommitOfAnotherClientInOrderWithItsAuthorAndValues() async throws {
        let server = try SampleModelServer()
        let watcher = Self.client(server)
        defer { watcher.shutdownInBackground() }
        let since = try await Self.latestSeq(server)
        var changes = watcher.changes(entity: "Song", since: since, model: server.model).makeAsyncIterator()

        let writer = try server.newContext(clientName: "writer")
        let song = try writer.insert("Song", values: ["title": "So What", "plays": 7])
        try writer.save()
        try song.set("plays", Int64(8))
        try writer.save()
        try writer.delete(song)
        try writer.save()

        let inserted = try #require(try await changes.next())
        #expect(inserted.seq == since + 1 && inserted.author == "writer")
        #expect(inserted.inserted.map(\.objectID) == [song.objectID] && inserted.inserted.first?.version == 1)
        #expect(inserted.inserted.first?.snapshot?.value(forKey: "title") == .string("So What"))
        let updated = try #require(try await changes.next())
        #expect(updated.seq == since + 2 && updated.updated.first?.snapshot?.value(forKey: "plays") == .int(8))
        let deleted = try #require(try await changes.next())
        #expect(deleted.seq == since + 3 && deleted.deleted == [song.objectID] && deleted.inserted.isEmpty)
    }

    @Test func aLiveQuerySeesObjectsEnterAndLeaveItsResult() async throws {
        let server = try SampleModelServer()
        let watcher = Self.client(server)
        defer { watcher.shutdownInBackground() }
        let since = try await Self.latestSeq(server)
        var changes = watcher.changes(entity: "Song", predicate: "plays > %d", arguments: [.integer(10)], since: since,
                                      includeValues: false, model: server.model).makeAsyncIterator()
        let writer = try server.newContext()
        let song = try writer.insert("Song", values: ["title": "Blue in Green", "plays": 3])
        try writer.save()  // does not match: nothing comes
        try song.set("plays", Int64(12))
        try writer.save()
        try song.set("plays", Int64(1))
        try writer.save()

        let entered = try #require(try await changes.next())
        #expect(entered.seq == since + 2 && entered.inserted.map(\.objectID) == [song.objectID])
        #expect(entered.inserted.first?.snapshot == nil, "includeValues: false")
        let left = try #require(try await changes.next())
        #expect(left.seq == since + 3 && left.removed == [song.objectID] && left.updated.isEmpty)
    }

    @Test func aContextOverRemoteStoreSeesAnotherProcesssSaveWithoutARefreshOrARoundTrip() async throws {
        let server = try SampleModelServer()
        let writer = try server.newContext()
        let song = try writer.insert("Song", values: ["title": "So What", "plays": 7])
        let other = try writer.insert("Song", values: ["title": "Freddie Freeloader", "plays": 3])
        try writer.save()

        let reader = try server.newContext(remoteChanges: true)
        var heard = Self.remoteChanges(of: reader).makeAsyncIterator()
        let held = try reader.existingObject(with: song.objectID)
        let heldOther = try reader.existingObject(with: other.objectID)
        #expect(try held.get("plays") as Int64 == 7)

        try song.set("plays", Int64(8))
        try writer.save()
        let change = try #require(await heard.next())
        #expect(change.updated == [song.objectID])

        let remote = try #require(reader.coordinator.persistentStores.first as? RemoteStore)
        let requests = remote.client.statistics.requests
        let again = try reader.existingObject(with: song.objectID)  // merges, then reads the new values
        #expect(again === held)
        #expect(try held.get("plays") as Int64 == 8 && held.version == 2)
        #expect(remote.client.statistics.requests == requests, "the values came with the change: no round trip")

        try writer.delete(other)
        try writer.save()
        #expect(try #require(await heard.next()).deleted == [other.objectID])
        #expect(try strings("title", of: reader.all("Song")) == ["So What"])
        #expect(heldOther.context == nil)
    }

    @Test func aStoresOwnSavesAreNotPostedAsRemoteChanges() async throws {
        let server = try SampleModelServer()
        let reader = try server.newContext(remoteChanges: true)
        var heard = Self.remoteChanges(of: reader).makeAsyncIterator()
        let mine = try reader.insert("Song", values: ["title": "Mine"])
        try reader.save()
        try mine.set("plays", Int64(2))
        try reader.save()

        let writer = try server.newContext()
        let theirs = try writer.insert("Song", values: ["title": "Theirs"])
        try writer.save()
        let first = try #require(await heard.next())
        #expect(first.inserted == [theirs.objectID] && first.updated.isEmpty, "the first remote change heard is the other process's")
    }

    @Test func withRemoteChangesOffAContextKeepsWhatItReadUntilItRefreshes() async throws {
        let server = try SampleModelServer()
        let writer = try server.newContext()
        let song = try writer.insert("Song", values: ["title": "So What", "plays": 7])
        try writer.save()
        let following = try server.newContext(remoteChanges: true)
        var heard = Self.remoteChanges(of: following).makeAsyncIterator()
        let notFollowing = try server.newContext(remoteChanges: false)
        let heardOff = Atomic<Bool>(false)
        let token = notFollowing.coordinator.addRemoteChangeObserver { _ in heardOff.store(true, ordering: .relaxed) }
        defer { notFollowing.coordinator.removeRemoteChangeObserver(token) }
        let held = try notFollowing.existingObject(with: song.objectID)

        try song.set("plays", Int64(8))
        try writer.save()
        _ = await heard.next()  // the change reached a store that follows
        #expect(try notFollowing.existingObject(with: song.objectID).get("plays") as Int64 == 7)
        let heardByTheOther = heardOff.load(ordering: .relaxed)
        #expect(!heardByTheOther)
        try notFollowing.refresh(held, mergeChanges: false)
        #expect(try held.get("plays") as Int64 == 8)
    }

    @Test func aContextOverRemoteStoreGoesOnSeeingSavesAfterTheServerRestarts() async throws {
        let store = try StoreFixture(.documentServer)
        let reader = try store.secondContext(options: [RemoteStoreOptions.remoteChanges: "true"])
        var heard = Self.remoteChanges(of: reader).makeAsyncIterator()
        let song = try store.context.insert("Song", values: ["title": "So What", "plays": 7])
        try store.context.save()
        #expect(try #require(await heard.next()).inserted == [song.objectID], "the reader follows the server")
        let held = try reader.existingObject(with: song.objectID)
        #expect(try held.get("plays") as Int64 == 7)

        try #require(store.server).crash()
        try store.restartServerOnTheSamePort()
        try song.set("plays", Int64(8))
        try store.context.save()
        // The reader's store connects again and hears of the save (or, when the server no
        // longer has the commits it missed, that it missed some): either way the save shows.
        while let change = await heard.next(), !change.isEmpty, !change.updated.contains(song.objectID) {}
        #expect(try reader.existingObject(with: song.objectID).get("plays") as Int64 == 8)
    }

    @Test(.enabled(if: PythonScript.interpreter != nil, "python3 is not on PATH"))
    func aSwiftSubscriberSeesAPythonSave() async throws {
        let server = try SampleModelServer()
        let watcher = Self.client(server)
        defer { watcher.shutdownInBackground() }
        let since = try await Self.latestSeq(server)
        var changes = watcher.changes(entity: "Song", since: since, model: server.model).makeAsyncIterator()
        let saved = try server.python(Self.pythonSave, named: "save.py").run(["title": "From Python"])
        let change = try #require(try await changes.next())
        #expect(change.seq == saved["seq"] as? Int64 ?? Int64(saved["seq"] as? Int ?? -1))
        #expect(change.author == "python-writer")
        #expect(change.inserted.first?.snapshot?.value(forKey: "title") == .string("From Python"))
        #expect(change.inserted.first?.objectID.uriRepresentation == saved["id"] as? String)
    }

    @Test(.enabled(if: PythonScript.interpreter != nil, "python3 is not on PATH"))
    func aPythonSubscriberSeesASwiftRemoteStoreSave() async throws {
        let server = try SampleModelServer()
        let since = try await Self.latestSeq(server)
        let writer = try server.newContext(clientName: "swift-writer")
        let song = try writer.insert("Song", values: ["title": "From Swift", "plays": 5])
        try writer.save()
        let seen = try server.python(Self.pythonSubscribe, named: "subscribe.py").run(["since": since])
        #expect(seen["seq"] as? Int == Int(since) + 1)
        #expect(seen["author"] as? String == "swift-writer")
        #expect(seen["id"] as? String == song.objectID.uriRepresentation)
        #expect(seen["title"] as? String == "From Swift" && seen["plays"] as? Int == 5)
    }

    // MARK: - The Python programs (input: argv[1], a JSON object with host and port added)

    static let pythonSave = #"""
        import json, sys
        import docstore

        args = json.loads(sys.argv[1])
        with docstore.connect(args["host"], args["port"], client_name="python-writer") as client:
            s = client.session()
            song = s.insert("Song", title=args["title"])
            result = s.save()
            print(json.dumps({"seq": result.seq, "id": str(song.id)}))
        """#

    static let pythonSubscribe = #"""
        import json, sys
        import docstore

        args = json.loads(sys.argv[1])
        with docstore.connect(args["host"], args["port"]) as client:
            with client.subscribe("Song", since=args["since"]) as feed:
                change = feed.next(timeout=10)
                item = change.inserted[0]
                print(json.dumps({"seq": change.seq, "author": change.author, "id": str(item.id),
                                  "title": item.values["title"], "plays": item.values["plays"]}))
        """#
}
