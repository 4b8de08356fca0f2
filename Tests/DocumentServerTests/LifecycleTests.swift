import Foundation
import ServerTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Starting, stopping and restarting `docserver serve`.
@Suite struct LifecycleTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalStopsTheServerWithStatusZeroAndClosesItsPort(signal: Int32) throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        #expect(server.host == "127.0.0.1")
        let idle = try server.connect()
        let halfway = try server.connect()
        try halfway.send(#"{"jsonrpc":"2.0","id":1,"#)
        let started = Date()
        #expect(try server.stop(signal: signal) == 0, "log: \(server.log.suffix(1000))")
        #expect(server.terminationReason == .exit)
        #expect(Date().timeIntervalSince(started) < 5, "idle and stalled connections do not hold up the stop")
        #expect(throws: HarnessError.self) { try LineClient(port: server.port) }
        _ = try idle.bytesUntilClosed()
    }

    /// docs/PROTOCOL.md, Shutdown: the drain is bounded (5 s); saves are carried out in order,
    /// so those in the file are the first ones sent.
    @Test func aClientThatDoesNotReadItsAnswersHoldsUpTheStopOnlyForTheGrace() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        // Saves until the server, whose answers are not read, stops reading too.
        var pending: [UInt8] = []
        var next = 1
        var stalledSince: Date?
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if pending.isEmpty {
                pending = Array((next..<next + 1_000).map { id in
                    #"{"jsonrpc":"2.0","id":\#(id),"method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"save \#(id)"}}]}}"# + "\n"
                }.joined().utf8)
                next += 1_000
            }
            let count = client.sendWithoutWaiting(pending)
            pending.removeFirst(count)
            if count > 0 {
                stalledSince = nil
            } else if let since = stalledSince {
                if Date().timeIntervalSince(since) > 0.5 { break }
                usleep(20_000)
            } else {
                stalledSince = Date()
            }
        }
        #expect(stalledSince != nil, "the server kept reading although its answers were not read")
        let started = Date()
        #expect(try server.stop(signal: SIGTERM, timeout: 12) == 0, "log: \(server.log.suffix(1000))")
        #expect(Date().timeIntervalSince(started) < 9, "the stop took \(Date().timeIntervalSince(started)) s")
        let file = try StoreFileContents(server.storeURL)
        let stored = Set((file.json["objects"]["Tag"].array ?? []).compactMap { $0["values"]["label"].string })
        #expect(stored == Set((0..<stored.count).map { "save \($0 + 1)" }), "the saves in the file are not the first \(stored.count) sent")
        withExtendedLifetime(client) {}
    }

    @Test func aRestartedServerServesTheSameStoreUUIDObjectsAndVersions() throws {
        let directory = try TemporaryDirectory()
        var server = try ServerProcess(in: directory)
        var client = try server.connect()
        let uuid = try client.result("hello")["storeUUID"].string
        let data = try SampleData.insert(through: client)
        _ = try client.result("save", ["update": [["id": data["s1"], "version": 1, "values": ["plays": 70]]]])
        let before = try client.result("fetch", ["entity": "Song", "sort": [["key": "title"]]])
        #expect(try server.stop() == 0)

        server = try ServerProcess(in: directory)
        client = try server.connect()
        #expect(try client.result("hello")["storeUUID"].string == uuid)
        #expect(try client.result("fetch", ["entity": "Song", "sort": [["key": "title"]]]) == before)
        // New objects get new references after a restart.
        let next = try client.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "new"]]]])["ids"]["t"].string
        #expect(next.map { Set(data.ids.values).contains($0) } == false)
        #expect(try server.stop() == 0)
    }

    @Test func aNewStoreIsCreatedAtStartUpAndKeepsItsUUIDAcrossARestart() throws {
        let directory = try TemporaryDirectory()
        var server = try ServerProcess(in: directory)
        #expect(FileManager.default.fileExists(atPath: server.storeURL.path), "--store: created when missing")
        let first = try server.connect().result("hello")["storeUUID"].string
        #expect(try server.stop() == 0)
        server = try ServerProcess(in: directory)
        let second = try server.connect().result("hello")["storeUUID"].string
        #expect(first != nil)
        #expect(second == first, "hello named another store after a restart")
        #expect(try server.stop() == 0)
    }

    @Test func withoutStoreOptionTheServerCreatesDataStoreJSONInItsWorkingDirectory() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(store: nil, workingDirectory: directory.url, keeping: directory)
        let client = try server.connect()
        _ = try client.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "here"]]]])
        #expect(try server.stop() == 0)
        let file = try StoreFileContents(directory.file("data/store.json"))
        #expect(file.json["objects"]["Tag"][0]["values"]["label"].string == "here")
    }

    /// With `--stop-when-stdin-closes` (as every server of the tests runs), the end of the
    /// server's standard input stops it as SIGTERM does: a save made before is durable, the
    /// store is released, and a test process that crashes leaves no server behind.
    @Test func theEndOfStandardInputStopsAServerStartedToStopThen() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        _ = try client.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "kept"]]]])
        #expect(server.process.isRunning)
        try server.closeStandardInput()
        #expect(server.waitForExit(timeout: 10))
        #expect(server.process.terminationStatus == 0)
        #expect(server.log.contains("standard input closed"))
        let file = try StoreFileContents(directory.file("store.json"))
        #expect(file.json["objects"]["Tag"][0]["values"]["label"].string == "kept")
        let next = try ServerProcess(in: directory)
        #expect(try next.connect().result("ping").string == "pong")
        #expect(try next.stop() == 0)
    }

    @Test func aSecondServerOnTheSameStoreRefusesToStart() throws {
        let directory = try TemporaryDirectory()
        let first = try ServerProcess(in: directory)
        let second = try runDocServer(["serve", "--port", "0", "--store", first.storeURL.path], timeout: 10)
        #expect(second.status != 0)
        #expect(!second.output.contains("listening on"))
        #expect(!second.errors.isEmpty)
        let client = try first.connect()
        #expect(try client.result("ping").string == "pong")
        #expect(try first.stop() == 0)
    }

    @Test func aPortInUseIsAStartUpFailure() throws {
        let directory = try TemporaryDirectory()
        let first = try ServerProcess(in: directory)
        let second = try runDocServer(["serve", "--port", String(first.port), "--store", directory.file("other.json").path], timeout: 10)
        #expect(second.status != 0)
        #expect(!second.errors.isEmpty)
        #expect(try first.stop() == 0)
    }

    @Test func aDamagedStoreIsAStartUpFailureThatLeavesTheFileAlone() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store.json")
        let damaged = Data(#"{"format":"graphcore-json-store","formatVersion":1,"metadata":{"#.utf8)
        try damaged.write(to: store)
        let result = try runDocServer(["serve", "--port", "0", "--store", store.path], timeout: 10)
        #expect(result.status != 0)
        #expect(!result.output.contains("listening on"))
        #expect(result.errors.contains(store.lastPathComponent), "the message names the file: \(result.errors)")
        #expect(fileBytes(store) == damaged)
    }
}
