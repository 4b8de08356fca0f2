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

/// Live queries: objects entering and leaving a predicate's result.
@Suite struct LiveQueryTests {
    @Test func aLiveQuerySeesObjectsEnterLeaveAndGetDeleted() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let subscriber = try server.connect(), writer = try server.connect()
        let started = try subscriber.result("subscribe", ["entity": "Song", "predicate": "plays > %d", "arguments": [10]])
        #expect(started["subscription"].int == 1)
        let inserted = try writer.result("save", ["insert": [
            ["id": "low", "entity": "Song", "values": ["title": "Low", "plays": 1]],
            ["id": "high", "entity": "Song", "values": ["title": "High", "plays": 50]],
        ]])
        let low = try #require(inserted["ids"]["low"].string), high = try #require(inserted["ids"]["high"].string)
        var note = try JSON(parsing: subscriber.readLine())["params"]
        #expect(note["inserted"].array?.compactMap { $0["id"].string } == [high], "only the matching insert")
        #expect(note["removed"].count == 0)

        // Low now matches (enters), High still matches (updated).
        _ = try writer.result("save", ["update": [["id": low, "version": 1, "values": ["plays": 20]],
                                                  ["id": high, "version": 1, "values": ["plays": 60]]]])
        note = try JSON(parsing: subscriber.readLine())["params"]
        #expect(note["inserted"].array?.compactMap { $0["id"].string } == [low])
        #expect(note["updated"].array?.compactMap { $0["id"].string } == [high])

        // High leaves (removed, still exists); then Low is deleted.
        _ = try writer.result("save", ["update": [["id": high, "version": 2, "values": ["plays": 0]]]])
        note = try JSON(parsing: subscriber.readLine())["params"]
        #expect(note["removed"].array?.compactMap { $0.string } == [high])
        #expect(note["inserted"].count == 0 && note["updated"].count == 0 && note["deleted"].count == 0)
        _ = try writer.result("save", ["delete": [["id": low, "version": 2]]])
        note = try JSON(parsing: subscriber.readLine())["params"]
        #expect(note["deleted"].array?.compactMap { $0.string } == [low])

        // Deleting High, which did not match, sends nothing.
        _ = try writer.result("save", ["delete": [["id": high, "version": 3]]])
        #expect(try subscriber.staysSilent(for: 0.3))
        try server.stop()
    }

    @Test func badSubscribeParamsAreRefusedAndTheConnectionStaysUsable() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        #expect(try client.call("subscribe", ["predicate": "plays > 1"])["error"]["code"].int == -32602)
        #expect(try client.call("subscribe", ["entity": "Nope"])["error"]["code"].int == -32602)
        #expect(try client.call("subscribe", ["entity": "Song", "predicate": "nope > 1"])["error"]["code"].int == -32602)
        #expect(try client.call("subscribe", ["entity": "Song", "colour": "red"])["error"]["code"].int == -32602)
        #expect(try client.call("subscribe", ["since": -1])["error"]["code"].int == -32602)
        #expect(try client.call("subscribe", ["since": 5])["error"]["data"]["path"].string == "params.since", "above the latest seq")
        #expect(try client.call("unsubscribe", ["subscription": 7])["error"]["code"].int == -32003)
        #expect(try client.call("unsubscribe", [:])["error"]["code"].int == -32602)
        #expect(try client.call("changes", [:])["error"]["code"].int == -32602, "since is required")
        #expect(try client.call("changes", ["since": 0, "limit": 1001])["error"]["code"].int == -32602)
        let batch = try client.request(#"[{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{}}]"#)
        #expect(batch[0]["error"]["code"].int == -32600, "subscribe is not allowed in a batch")
        #expect(try client.result("subscribe", [:])["subscription"].int == 1, "numbers start at 1 after refusals")
        try server.stop()
    }
}

/// The life of a subscription: unsubscribe, the end of its connection, the limit per connection.
@Suite struct SubscriptionLifeTests {
    @Test func unsubscribeStopsNotificationsAndANumberIsNotKnownTwice() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let subscriber = try server.connect(), writer = try server.connect()
        _ = try subscriber.result("subscribe", ["entity": "Tag"])
        let second = try subscriber.result("subscribe", [:])
        #expect(second["subscription"].int == 2)
        try writer.insertTag("a")
        let both = try subscriber.notifications(2)
        #expect(Set(both.compactMap { $0["params"]["subscription"].int }) == [1, 2])
        let (answer, _) = try subscriber.callCollecting("unsubscribe", ["subscription": 1], id: 50)
        #expect(answer["result"].bool == true)
        try writer.insertTag("b")
        let note = try JSON(parsing: subscriber.readLine())
        #expect(note["params"]["subscription"].int == 2, "only the open subscription")
        #expect(try subscriber.staysSilent(for: 0.3))
        #expect(try subscriber.call("unsubscribe", ["subscription": 1])["error"]["code"].int == -32003)
        try server.stop()
    }

    @Test func subscriptionsEndWithTheirConnectionAndOthersGoOn() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let writer = try server.connect(), staying = try server.connect()
        _ = try staying.result("subscribe", ["entity": "Tag"])
        for _ in 0..<5 {
            let leaving = try server.connect()
            _ = try leaving.result("subscribe", ["entity": "Tag"])
            leaving.close()
        }
        for index in 0..<3 { try writer.insertTag("t\(index)") }
        #expect(try staying.notifications(3).count == 3)
        let log = server.log
        try server.stop()
        #expect(!log.contains("error"), "\(log)")
    }

    @Test func aConnectionHoldsAtMostItsLimitOfSubscriptions() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-subscriptions", "2"])
        let client = try server.connect()
        _ = try client.result("subscribe", [:])
        _ = try client.result("subscribe", [:])
        let refused = try client.call("subscribe", [:])
        #expect(refused["error"]["code"].int == -32005)
        #expect(refused["error"]["data"]["what"].string == "subscriptions")
        _ = try client.result("unsubscribe", ["subscription": 1])
        #expect(try client.result("subscribe", [:])["subscription"].int == 3)
        try server.stop()
    }
}
