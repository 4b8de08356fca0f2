import Foundation
import ServerTestSupport
import Testing

/// `fetch` over a socket answers through fetch indexes on a to-one relationship (alone and
/// first in a compound index), kept in the server's read state as saves change the
/// relationship directly, through its inverse and by a nullifying delete.
@Suite struct ToOneIndexOverTheWireTests {
    static let model = """
    {"entities": [
      {"name": "Album", "attributes": [{"name": "title", "type": "string"}],
       "relationships": [{"name": "songs", "destination": "Song", "inverse": "album", "toMany": true, "deleteRule": "nullify"}]},
      {"name": "Song",
       "attributes": [{"name": "title", "type": "string"}, {"name": "track", "type": "int64"}],
       "relationships": [{"name": "album", "destination": "Album", "inverse": "songs"}],
       "fetchIndexes": [{"name": "byAlbum", "elements": [{"property": "album"}]},
                        {"name": "byAlbumTrack", "elements": [{"property": "album"}, {"property": "track"}]}]}]}
    """

    @Test func fetchesOnTheRelationshipUseItsIndexesBeforeAndAfterChanges() throws {
        let directory = try TemporaryDirectory()
        let modelURL = directory.file("model.json")
        try Data(Self.model.utf8).write(to: modelURL)
        let server = try ServerProcess(in: directory, arguments: ["--model", modelURL.path])
        defer { withExtendedLifetime(server) {} }
        let client = try server.connect()
        var inserts: [[String: Any]] = (0..<3).map { ["id": "a\($0)", "entity": "Album", "values": ["title": "Album \($0)"]] }
        for a in 0..<3 {
            for track in [4, 1, 6, 3, 5, 2] {
                inserts.append(["id": "s\(a)-\(track)", "entity": "Song", "values": ["title": "Song \(a)-\(track)", "track": track, "album": "a\(a)"]])
            }
        }
        inserts.append(["id": "single", "entity": "Song", "values": ["title": "Single", "track": 1]])
        let ids = try client.result("save", ["insert": inserts])["ids"]
        let album = (0..<3).map { ids["a\($0)"].string ?? "" }

        func fetch(_ params: [String: Any]) throws -> (titles: [String], plan: String) {
            var all = params
            all["entity"] = "Song"
            all["explain"] = true
            let found = try client.result("fetch", all)
            return ((0..<(found["objects"].count ?? 0)).compactMap { found["objects"][$0]["values"]["title"].string }, found["plan"]["text"].string ?? "")
        }
        let one = try fetch(["predicate": "album == %@", "arguments": [["id": album[1]]]])
        #expect(one.titles.sorted() == (1...6).map { "Song 1-\($0)" } && one.plan == "index byAlbum on album (==), examined 6 objects")
        let two = try fetch(["predicate": "album IN %@", "arguments": [[["id": album[0]], ["id": album[2]]]]])
        #expect(two.titles.count == 12 && two.plan == "index byAlbum on album (IN), examined 12 objects")
        let range = try fetch(["predicate": "album == %@ AND track >= 5", "arguments": [["id": album[2]]]])
        #expect(range.titles.sorted() == ["Song 2-5", "Song 2-6"])
        #expect(range.plan == "index byAlbumTrack on album, track (==, >=), examined 2 objects")
        let ordered = try fetch(["predicate": "album == %@", "arguments": [["id": album[0]]], "sort": [["key": "track", "ascending": false]], "limit": 3])
        #expect(ordered.titles == ["Song 0-6", "Song 0-5", "Song 0-4"])
        #expect(ordered.plan == "index byAlbumTrack on album, track (==, ORDER BY), sorted by the index, examined 3 objects")

        // The single joins Album 0 through the inverse; Album 1 is deleted, its songs nullified.
        let albums = try client.result("get", ["ids": album])["objects"]
        let single = try #require(ids["single"].string)
        let songs0 = (0..<(albums[0]["values"]["songs"].count ?? 0)).compactMap { albums[0]["values"]["songs"][$0].string }
        _ = try client.result("save", ["update": [["id": album[0], "version": albums[0]["version"].int ?? 0,
                                                   "values": ["songs": songs0 + [single]]]],
                                       "delete": [["id": album[1], "version": albums[1]["version"].int ?? 0]]])
        #expect(try fetch(["predicate": "album == %@", "arguments": [["id": album[0]]]]).titles.count == 7)
        let orphans = try fetch(["predicate": "album == nil"])
        #expect(orphans.titles.count == 6 && orphans.plan == "index byAlbum on album (==), examined 6 objects")
        let first = try fetch(["predicate": "album == %@", "arguments": [["id": album[0]]], "sort": [["key": "track"]], "limit": 2])
        #expect(first.titles == ["Song 0-1", "Single"])
        try server.stop()
    }
}
