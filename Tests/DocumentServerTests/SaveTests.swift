import Foundation
import ServerTestSupport
import Testing

/// Saves between clients and across restarts: optimistic locking, durability of acknowledged
/// saves, a store that cannot be written.
@Suite struct SaveTests {
    @Test func twoClientsThatReadTheSameVersionConflictAndTheSecondCanRetry() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let alice = try server.connect(), bob = try server.connect()
        let data = try SampleData.insert(through: alice)
        let song = data["s1"]
        let read = try alice.result("get", ["ids": [song]])["objects"][0]["version"].int
        let version = try #require(read)
        #expect(try bob.result("get", ["ids": [song]])["objects"][0]["version"].int == version)

        let won = try alice.result("save", ["update": [["id": song, "version": version, "values": ["plays": 100]]]])
        #expect(won["versions"][song].int == version + 1)
        let lost = try bob.call("save", ["update": [["id": song, "version": version, "values": ["plays": 200]]]])
        #expect(lost["error"]["code"].int == -32001)
        #expect(lost["error"]["data"] == JSON(["conflicts": [["id": song, "expected": version, "current": version + 1]]]))

        let reread = try bob.result("get", ["ids": [song]])["objects"][0]
        #expect(reread["version"].int == version + 1)
        #expect(reread["values"]["plays"].int == 100, "the losing save changed nothing")
        let retried = try bob.result("save", ["update": [["id": song, "version": version + 1, "values": ["plays": 200]]]])
        #expect(retried["versions"][song].int == version + 2)
        try server.stop()
    }

    @Test func ofTwoSavesSentAtOnceAtTheSameVersionExactlyOneWins() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let clients = try (0..<4).map { _ in try server.connect() }
        let data = try SampleData.insert(through: clients[0])
        let album = data["b1"]
        for (index, client) in clients.enumerated() {
            try client.sendLine(#"{"jsonrpc":"2.0","id":\#(index),"method":"save","params":{"update":[{"id":"\#(album)","version":1,"values":{"title":"Take \#(index)"}}]}}"#)
        }
        let answers = try clients.map { try JSON(parsing: $0.readLine()) }
        let winners = answers.filter { !$0["result"].isMissing }
        #expect(winners.count == 1, "\(answers)")
        for answer in answers where answer["result"].isMissing {
            #expect(answer["error"]["code"].int == -32001)
            #expect(answer["error"]["data"]["conflicts"][0]["current"].int == 2)
        }
        let title = try clients[1].result("get", ["ids": [album]])["objects"][0]["values"]["title"].string
        #expect(title == "Take \(winners.first?["id"].int ?? -1)")
        try server.stop()
    }

    @Test func acknowledgedSavesSurviveAKilledServer() throws {
        let directory = try TemporaryDirectory()
        var server = try ServerProcess(in: directory)
        let client = try server.connect()
        var saved: [String: String] = [:]
        for index in 0..<20 {
            let result = try client.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "tag \(index)"]]]])
            saved[try #require(result["ids"]["t"].string)] = "tag \(index)"
        }
        server.crash()
        #expect(server.terminationReason == .uncaughtSignal)

        let file = try StoreFileContents(server.storeURL)
        for (id, label) in saved {
            #expect(file.record("Tag", reference: reference(of: id) ?? -1)?["values"]["label"].string == label, "\(id) in the file")
        }
        server = try ServerProcess(in: directory)
        let again = try server.connect()
        let objects = try again.result("get", ["ids": Array(saved.keys)])
        #expect(objects["missing"].count == 0)
        #expect(Set((objects["objects"].array ?? []).compactMap { $0["values"]["label"].string }) == Set(saved.values))
        #expect(try server.stop() == 0)
    }

    @Test func aClientThatDisconnectsRightAfterSendingASaveLosesNoAcknowledgedSave() throws {
        let directory = try TemporaryDirectory()
        var server = try ServerProcess(in: directory)
        var saved: [String: String] = [:]
        for round in 0..<5 {
            let client = try server.connect()
            for index in 0..<3 {
                let label = "round \(round) tag \(index)"
                let result = try client.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": label]]]])
                saved[try #require(result["ids"]["t"].string)] = label
            }
            // A save nobody waits for: an orderly close, or a reset.
            try client.sendLine(#"{"jsonrpc":"2.0","id":99,"method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"unacknowledged \#(round)"}},{"id":"u","entity":"Tag","values":{"label":"unacknowledged \#(round) too"}}]}}"#)
            if round % 2 == 0 { client.close() } else { client.reset() }
        }
        let other = try server.connect()
        #expect(try other.exchange(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#) == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#)
        #expect(try server.stop() == 0)

        server = try ServerProcess(in: directory)
        let client = try server.connect()
        let objects = try client.result("get", ["ids": Array(saved.keys)])
        #expect(objects["missing"].count == 0, "acknowledged saves missing after the restart: \(objects["missing"])")
        #expect(Set((objects["objects"].array ?? []).compactMap { $0["values"]["label"].string }) == Set(saved.values))
        // An unacknowledged save is all or nothing.
        let labels = (try client.result("fetch", ["entity": "Tag"])["objects"].array ?? []).compactMap { $0["values"]["label"].string }
        for round in 0..<5 {
            #expect(labels.contains("unacknowledged \(round)") == labels.contains("unacknowledged \(round) too"), "round \(round): \(labels)")
        }
        #expect(try server.stop() == 0)
    }

    @Test func aServerStoppedWhileSavesAreInFlightKeepsEveryAcknowledgedSave() throws {
        let directory = try TemporaryDirectory()
        var server = try ServerProcess(in: directory)
        let acknowledged = Tally()
        let done = DispatchGroup()
        let port = server.port
        for writer in 0..<4 {
            done.enter()
            Thread {
                defer { done.leave() }
                guard let client = try? LineClient(port: port) else { return acknowledged.fail("writer \(writer) cannot connect") }
                for index in 0..<2_000 {
                    let label = "writer \(writer) save \(index)"
                    guard let response = try? client.call("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": label]]]]) else {
                        return   // the server closed the connection
                    }
                    if let id = response["result"]["ids"]["t"].string {
                        acknowledged.add("\(id)\t\(label)")
                    } else if response["error"]["code"].int != -32006 {
                        return acknowledged.fail("writer \(writer): \(response)")
                    }
                }
            }.start()
        }
        let deadline = Date().addingTimeInterval(10)
        while acknowledged.snapshot().values.count < 40 && Date() < deadline { usleep(2_000) }
        let status = try server.stop(signal: SIGTERM)
        #expect(status == 0, "exit status after SIGTERM; log: \(server.log.suffix(2000))")
        #expect(done.wait(timeout: .now() + 10) == .success)
        let (saves, failures) = acknowledged.snapshot()
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        #expect(saves.count >= 40)

        // Every acknowledged save is in the file…
        let file = try StoreFileContents(server.storeURL)
        var missing: [String] = []
        var ids: [String] = []
        for save in saves {
            let parts = save.split(separator: "\t", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            ids.append(parts[0])
            if file.record("Tag", reference: reference(of: parts[0]) ?? -1)?["values"]["label"].string != parts[1] { missing.append(save) }
        }
        #expect(missing.isEmpty, "\(missing.count) of \(saves.count) acknowledged saves are not in the file, first: \(missing.prefix(3))")
        // …and served after a restart.
        server = try ServerProcess(in: directory)
        let client = try server.connect()
        #expect(try client.result("get", ["ids": ids])["missing"].count == 0)
        #expect(try server.stop() == 0)
    }

    /// Tests run as root, for whom permissions do not stop a write; instead the store's directory
    /// is moved away and a plain file put in its place, so that the save's temporary file cannot
    /// be created (ENOTDIR).
    @Test func aSaveThatCannotBeWrittenIsStoreUnavailableAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let storeDirectory = directory.file("store"), movedDirectory = directory.file("moved")
        try FileManager.default.createDirectory(at: storeDirectory, withIntermediateDirectories: true)
        let server = try ServerProcess(store: storeDirectory.appendingPathComponent("store.json"), workingDirectory: directory.url,
                                       keeping: directory)
        let client = try server.connect()
        let before = try client.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "before"]]]])
        let beforeID = try #require(before["ids"]["t"].string)

        try FileManager.default.moveItem(at: storeDirectory, to: movedDirectory)
        try Data("not a directory".utf8).write(to: storeDirectory)
        let failed = try client.call("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "during"]]],
                                              "update": [["id": beforeID, "version": 1, "values": ["label": "changed"]]]])
        #expect(failed["error"]["code"].int == -32006, "\(failed)")
        #expect(failed["error"]["data"]["reason"].string?.isEmpty == false)
        // Nothing changed, in memory either, and the connection still works.
        let tags = try client.result("fetch", ["entity": "Tag"])["objects"]
        #expect(tags.count == 1)
        #expect(tags[0]["values"]["label"].string == "before")
        #expect(tags[0]["version"].int == 1)

        try FileManager.default.removeItem(at: storeDirectory)
        try FileManager.default.moveItem(at: movedDirectory, to: storeDirectory)
        let after = try client.call("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "after"]]],
                                             "update": [["id": beforeID, "version": 1, "values": ["label": "changed"]]]])
        #expect(!after["result"].isMissing, "the store works again: \(after)")
        #expect(try server.stop() == 0)
        let file = try StoreFileContents(server.storeURL)
        let labels = Set((file.json["objects"]["Tag"].array ?? []).compactMap { $0["values"]["label"].string })
        #expect(labels == ["changed", "after"])
    }
}
