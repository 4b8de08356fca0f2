import Foundation
import ServerTestSupport
import Testing

/// Live changes over the wire, against the real server: subscriptions and their
/// notifications, authors, live queries, unsubscribe, and the end of a connection.
@Suite struct LiveChangesTests {
    @Test func aSubscriberSeesAnotherConnectionsSaveWithItsAuthor() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let subscriber = try server.connect(), writer = try server.connect()
        _ = try writer.result("hello", ["client": "ann"])
        let started = try subscriber.result("subscribe", ["entity": "Tag"])
        #expect(started["subscription"].int == 1)
        let saved = try writer.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "jazz"]]]])
        let id = try #require(saved["ids"]["t"].string)
        let note = try JSON(parsing: subscriber.readLine())
        #expect(note["method"].string == "changes")
        #expect(note["id"].isMissing)
        let params = note["params"]
        #expect(params["subscription"].int == 1)
        #expect(params["seq"].int == saved["seq"].int)
        #expect(params["author"].string == "ann")
        #expect(params["timestamp"].string?.hasSuffix("Z") == true)
        #expect(params["inserted"][0]["id"].string == id)
        #expect(params["inserted"][0]["values"]["label"].string == "jazz")
        #expect(params["inserted"][0] == (try writer.result("get", ["ids": [id]]))["objects"][0], "objects as get answers them")
        #expect(params["updated"].count == 0 && params["deleted"].count == 0)
        #expect(params["removed"].isMissing, "removed is for live queries only")
        try server.stop()
    }

    @Test func aSaveWithoutHelloHasANullAuthorAndOtherEntitiesSendNothing() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let subscriber = try server.connect(), writer = try server.connect()
        _ = try subscriber.result("subscribe", ["entity": "Song", "includeValues": false])
        _ = try writer.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "jazz"]]]])
        let saved = try writer.result("save", ["insert": [["id": "s", "entity": "Song", "values": ["title": "Blue"]]]])
        let note = try JSON(parsing: subscriber.readLine())["params"]
        #expect(note["seq"].int == saved["seq"].int, "the Tag commit sent nothing")
        #expect(note["author"].isNull)
        #expect(note["inserted"][0]["values"].isMissing)
        #expect(note["inserted"][0]["version"].int == 1)
        try server.stop()
    }
}
