import DocumentClient
import Foundation
import GraphCore
import ServerTestSupport
import Testing

/// A Swift program (a context on a ``RemoteStore``) and a Python program (the `docstore`
/// package in clients/python) editing the same server see each other's changes: values,
/// inserts and deletions, relationships kept on both sides by the server, and optimistic
/// locking across the two languages.
@Suite(.enabled(if: PythonScript.interpreter != nil, "python3 is not on PATH: the Python ↔ Swift interop tests need it"))
struct PythonInteropTests {
    @Test func aSwiftContextAndAPythonClientSeeEachOthersChanges() throws {
        let server = try SampleModelServer()
        let context = try server.newContext()

        // Swift inserts an album with three songs.
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        var songs: [String: ManagedObject] = [:]
        for (title, plays) in [("So What", 7), ("Freddie Freeloader", 3), ("Blue in Green", 12)] {
            let song = try context.insert("Song", values: ["title": .string(title), "plays": .int(Int64(plays))])
            try album.add(song, toKey: "songs")
            songs[title] = song
        }
        try context.save()
        let soWhat = try #require(songs["So What"]), freddie = try #require(songs["Freddie Freeloader"])
        let blueInGreen = try #require(songs["Blue in Green"])

        // Python reads them, changes a song's plays, inserts a song into the album, deletes another.
        let edits = try server.python(Self.editScript, named: "edit.py").run([
            "album": album.objectID.uriRepresentation, "titles": ["So What", "Freddie Freeloader", "Blue in Green"],
            "change": "So What", "delete": "Freddie Freeloader",
        ])
        #expect(edits["changed"] as? String == soWhat.objectID.uriRepresentation)
        #expect(edits["deleted"] as? String == freddie.objectID.uriRepresentation)
        #expect(edits["plays"] as? Int == 107)
        let inserted = try ObjectID(uri: try #require(edits["inserted"] as? String), model: server.model)

        // The Swift context refreshes its objects and sees the Python save.
        try context.refresh(album, mergeChanges: false)
        for song in songs.values { try context.refresh(song, mergeChanges: false) }
        #expect(try soWhat.get("plays") as Int64 == 107)
        #expect(soWhat.version == 2)
        #expect(try album.ids("songs") == [soWhat.objectID, blueInGreen.objectID, inserted])
        #expect(throws: GraphError.objectNotFound(freddie.objectID)) { _ = try freddie.value(forKey: "title") }

        // A context on a new coordinator, which has read nothing, sees the same.
        let fresh = try server.newContext()
        #expect(try strings("title", of: fresh.all("Song", sortedBy: "title")) == ["Blue in Green", "Flamenco Sketches", "So What"])
        let freshAlbum = try fresh.existingObject(with: album.objectID)
        #expect(try strings("title", of: freshAlbum.objects(forKey: "songs")) == ["So What", "Blue in Green", "Flamenco Sketches"])
        let pythonSong = try fresh.existingObject(with: inserted)
        #expect(try pythonSong.get("plays") as Int64 == 5)
        #expect(try pythonSong.id("album") == album.objectID, "the Python insert set Song.album; the server kept the inverse")
        #expect(throws: GraphError.objectNotFound(freddie.objectID)) { _ = try fresh.existingObject(with: freddie.objectID) }

        // Swift changes the album, the Python song, and adds a song; Python sees it all.
        try album.set("title", "Kind of Blue (Legacy Edition)")
        let pythonSongHere = try context.existingObject(with: inserted)
        try pythonSongHere.set("plays", Int64(42))
        let allBlues = try context.insert("Song", values: ["title": "All Blues", "plays": 1])
        try allBlues.setObject(album, forKey: "album")
        try context.save()

        let seen = try server.python(Self.readScript, named: "read.py").run(["album": album.objectID.uriRepresentation])
        #expect(seen["title"] as? String == "Kind of Blue (Legacy Edition)")
        let seenSongs = try #require(seen["songs"] as? [[String: Any]])
        #expect(seenSongs.compactMap { $0["title"] as? String } == ["So What", "Blue in Green", "Flamenco Sketches", "All Blues"])
        #expect(seenSongs.compactMap { $0["id"] as? String }
                == [soWhat.objectID, blueInGreen.objectID, inserted, allBlues.objectID].map(\.uriRepresentation))
        #expect(seenSongs.compactMap { $0["plays"] as? Int } == [107, 12, 42, 1])
        #expect(seenSongs.compactMap { $0["version"] as? Int } == [2, 1, 2, 1])
        #expect(seenSongs.compactMap { $0["album"] as? String } == Array(repeating: album.objectID.uriRepresentation, count: 4))
    }

    @Test func aSaveOverAPythonUpdateConflictsNamingTheSongAndBothVersions() throws {
        let server = try SampleModelServer()
        let writer = try server.newContext()
        let inserted = try writer.insert("Song", values: ["title": "Blue in Green", "plays": 12])
        try writer.save()
        let id = inserted.objectID

        // A Swift context reads the song (version 1); Python updates it (version 2).
        let context = try server.newContext()
        let song = try #require(try context.all("Song").first)
        #expect(song.objectID == id)
        #expect(try song.get("plays") as Int64 == 12)
        let update = try server.python(Self.updateScript, named: "update.py").run(["id": id.uriRepresentation, "plays": 13])
        #expect(update["version"] as? Int == 2)

        // Swift's save fails with a conflict naming the song, the version it read and the store's.
        try song.set("title", "Blue in Green (alternate take)")
        let error = #expect(throws: GraphError.self) { try context.save() }
        #expect(conflicts(of: error) == [Conflict(objectID: id, expectedVersion: 1, currentVersion: 2)])
        #expect(error.map { "\($0)" }?.contains(id.uriRepresentation) == true)
        #expect(song.isUpdated, "the change is kept for the caller to merge or drop")

        // Refreshed with its change kept, the Swift save goes through on top of Python's.
        try context.refresh(song, mergeChanges: true)
        try context.save()
        #expect(song.version == 3)
        let stored = try server.newContext().existingObject(with: id)
        #expect(try stored.string("title") == "Blue in Green (alternate take)")
        #expect(try stored.get("plays") as Int64 == 13)
    }

    // MARK: - The Python programs (input: argv[1], a JSON object with host and port added)

    /// Reads the album and its songs (checking the titles), then in one save: adds 100 to the
    /// plays of one song, inserts "Flamenco Sketches" into the album, deletes another song.
    static let editScript = #"""
        import json, sys
        import docstore

        args = json.loads(sys.argv[1])
        with docstore.connect(args["host"], args["port"]) as client:
            s = client.session()
            album = s.get(args["album"])[0]
            assert album is not None, "the album Swift saved is not on the server"
            assert album.title == "Kind of Blue", album.title
            titles = [song.title for song in album.songs]
            assert titles == args["titles"], titles
            by_title = {song.title: song for song in album.songs}
            changed, deleted = by_title[args["change"]], by_title[args["delete"]]
            changed.plays = changed.plays + 100
            inserted = s.insert("Song", title="Flamenco Sketches", plays=5, album=album)
            s.delete(deleted)
            s.save()
            print(json.dumps({"changed": changed.id, "plays": changed.plays, "inserted": inserted.id,
                              "deleted": deleted.id}))
        """#

    /// Prints the album's title and each of its songs as the server has them now.
    static let readScript = #"""
        import json, sys
        import docstore

        args = json.loads(sys.argv[1])
        with docstore.connect(args["host"], args["port"]) as client:
            album = client.get(args["album"])[0]
            songs = [{"id": song.id, "title": song.title, "plays": song.plays, "version": song.version,
                      "album": song.album.id if song.album is not None else None} for song in album.songs]
            print(json.dumps({"title": album.title, "songs": songs}))
        """#

    /// Sets one song's plays; prints its new version.
    static let updateScript = #"""
        import json, sys
        import docstore

        args = json.loads(sys.argv[1])
        with docstore.connect(args["host"], args["port"]) as client:
            s = client.session()
            song = s.get(args["id"])[0]
            song.plays = args["plays"]
            s.save()
            print(json.dumps({"version": song.version}))
        """#
}
