import Foundation
import ServerTestSupport
import Synchronization
import Testing

/// Reads on published states, against the real server: a read sees a whole commit or none of
/// it, while saves run; the commit number in `hello` and in save results.
@Suite struct SnapshotReadTests {
    /// How many saves the hammer test makes (`DOCSERVER_STRESS_SAVES` for a longer run).
    private static let saves = ProcessInfo.processInfo.environment["DOCSERVER_STRESS_SAVES"].flatMap(Int.init) ?? 150

    @Test func aReaderNeverSeesOneObjectOfACommitWithoutTheOther() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let setup = try server.connect()
        let inserted = try setup.result("save", ["insert": [
            ["id": "a", "entity": "Album", "values": ["title": "0"]],
            ["id": "b", "entity": "Album", "values": ["title": "0"]],
        ]])
        let first = try #require(inserted["ids"]["a"].string), second = try #require(inserted["ids"]["b"].string)
        let port = server.port
        let saving = Atomic<Bool>(true)
        let readersStarted = Atomic<Int>(0)
        let problems = Mutex<[String]>([])
        let reads = Atomic<Int>(0)
        let done = DispatchGroup()
        // Threads of their own (not concurrentPerform, which may run the three one after another).
        for index in 0..<3 {
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                do {
                    let client = try LineClient(port: port)
                    if index == 0 {
                        defer { saving.store(false, ordering: .releasing) }
                        // The saves start once both readers are reading.
                        let waitUntil = Date().addingTimeInterval(30)
                        while readersStarted.load(ordering: .acquiring) < 2 && Date() < waitUntil { usleep(1_000) }
                        for version in 1...Self.saves {
                            let title = String(version)
                            let saved = try client.result("save", ["update": [
                                ["id": first, "version": version, "values": ["title": title]],
                                ["id": second, "version": version, "values": ["title": title]],
                            ]])
                            if saved["versions"][first].int != version + 1 { throw HarnessError("unexpected save result \(saved)") }
                        }
                        return
                    }
                    readersStarted.add(1, ordering: .releasing)
                    while saving.load(ordering: .acquiring) {
                        // By ID (answered on the connection's thread) and by fetch (on a reader thread).
                        let got = try client.result("get", ["ids": [first, second]])["objects"]
                        let fetched = try client.result("fetch", ["entity": "Album"])["objects"]
                        for (how, pair) in [("get", got), ("fetch", fetched)] {
                            let titles = (pair.array ?? []).map { $0["values"]["title"].string ?? "?" }
                            let versions = (pair.array ?? []).map { $0["version"].int ?? -1 }
                            if titles.count != 2 || titles[0] != titles[1] || versions[0] != versions[1] {
                                problems.withLock { $0.append("\(how) saw \(titles) at versions \(versions)") }
                            }
                        }
                        reads.add(1, ordering: .relaxed)
                    }
                } catch {
                    problems.withLock { $0.append("client \(index): \(error)") }
                    if index > 0 { readersStarted.add(1, ordering: .releasing) }
                    saving.store(false, ordering: .releasing)
                }
            }
            thread.start()
        }
        done.wait()
        #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0.prefix(5) })")
        #expect(reads.load(ordering: .relaxed) > 0)
        try server.stop()
    }

    @Test func helloAnswersTheLastCommitsNumberAndEachSaveTheNumberOfItsCommit() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        #expect(try client.result("hello")["seq"].int == 0)
        let first = try client.result("save", ["insert": [["id": "a", "entity": "Album", "values": ["title": "Kind of Blue"]]]])
        #expect(first["seq"].int == 1)
        let album = try #require(first["ids"]["a"].string)
        let second = try client.result("save", ["update": [["id": album, "version": 1, "values": ["title": "Sketches of Spain"]]]])
        #expect(second["seq"].int == 2)
        // A save that fails commits nothing: no number is used.
        let stale = try client.call("save", ["update": [["id": album, "version": 1, "values": ["title": "Lost"]]]])
        #expect(stale["error"]["code"].int == -32001)
        #expect(try server.connect().result("hello")["seq"].int == 2)
        try server.stop()
    }
}
