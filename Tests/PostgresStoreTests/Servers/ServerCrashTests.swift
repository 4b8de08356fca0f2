import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// One of two servers on a database killed (SIGKILL) while clients save through both: no save
/// it acknowledged is lost, none is half applied (each is one PostgreSQL transaction), and the
/// other server keeps serving throughout.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct ServerCrashTests {
    /// Saves each client makes (more with `POSTGRES_CRASH_SAVES`, for a longer run).
    static let savesPerClient = Int(ProcessInfo.processInfo.environment["POSTGRES_CRASH_SAVES"] ?? "") ?? 30

    @Test func aServerKilledMidSaveLosesNoAcknowledgedSaveAndLeavesNoHalfOneWhileTheOtherServes() throws {
        let pair = try DatabaseServers(count: 2)
        let clients = try (0..<4).map { try pair.connect($0 % 2) }
        let log = SaveLog()
        let victim = Victim(pair.servers[0])
        let killer = Thread {
            log.waitForAcknowledged(onServer: 0, atLeast: 10)
            victim.server.crash()
            log.killed()
        }
        killer.start()
        DispatchQueue.concurrentPerform(iterations: clients.count) { index in
            let server = index % 2
            for round in 0..<Self.savesPerClient {
                let key = "c\(index)-\(round)"
                // Three objects in one save: an album and two songs, related both ways.
                let params: [String: Any] = ["insert": [
                    ["id": "al", "entity": "Album", "values": ["title": key, "songs": ["s1", "s2"]]],
                    ["id": "s1", "entity": "Song", "values": ["title": key + "-a"]],
                    ["id": "s2", "entity": "Song", "values": ["title": key + "-b"]],
                ]]
                let answer = try? clients[index].call("save", params)
                if let answer, answer["result"] != nil {
                    log.acknowledged(key, onServer: server)
                } else {
                    log.failed(key, onServer: server, answer: answer)
                    if server == 0 { break }  // its server is gone
                }
            }
        }
        log.waitForKill()
        #expect(!pair.servers[0].isRunning)
        #expect(log.failures(onServer: 1).isEmpty, "the other server failed saves: \(log.failures(onServer: 1))")
        #expect(log.acknowledgedKeys(onServer: 1).count == 2 * Self.savesPerClient)

        // Read back through a server started now, from the database alone.
        let checker = try DatabaseServers.server(on: pair.database)
        let client = try WireClient(port: checker.port)
        let albums = try client.result("fetch", ["entity": "Album"]).objects.compactMap { $0 }
        let songs = try client.result("fetch", ["entity": "Song"]).objects.compactMap { $0 }
        let songTitles = Dictionary(uniqueKeysWithValues: songs.compactMap { song -> (String, String)? in
            guard let id = song["id"] as? String, let title = (song["values"] as? [String: Any])?["title"] as? String else { return nil }
            return (id, title)
        })
        var albumTitles = Set<String>()
        for album in albums {
            let values = album["values"] as? [String: Any] ?? [:]
            let title = values["title"] as? String ?? "?"
            albumTitles.insert(title)
            let titles = (values["songs"] as? [String] ?? []).map { songTitles[$0] ?? "?" }
            #expect(titles == [title + "-a", title + "-b"], "album \(title) is not whole: \(titles)")
        }
        #expect(songs.count == 2 * albums.count, "songs without their album: \(songs.count) songs, \(albums.count) albums")
        let lost = log.acknowledgedKeys(onServer: 0).union(log.acknowledgedKeys(onServer: 1)).subtracting(albumTitles)
        #expect(lost.isEmpty, "acknowledged saves lost: \(lost.sorted())")
        #expect(log.acknowledgedKeys(onServer: 0).count >= 10)
    }
}

/// What the clients of the crash test saw, shared by their threads.
final class SaveLog: @unchecked Sendable {
    // @unchecked: every member is touched with `condition` locked.
    private let condition = NSCondition()
    private var acknowledged: [Int: Set<String>] = [:]
    private var failed: [Int: [String]] = [:]
    private var isKilled = false

    func acknowledged(_ key: String, onServer server: Int) {
        condition.withLock {
            acknowledged[server, default: []].insert(key)
            condition.broadcast()
        }
    }

    func failed(_ key: String, onServer server: Int, answer: [String: Any]?) {
        condition.withLock { failed[server, default: []].append("\(key): \(answer.map { "\($0)" } ?? "no answer")") }
    }

    func killed() {
        condition.withLock {
            isKilled = true
            condition.broadcast()
        }
    }

    func waitForAcknowledged(onServer server: Int, atLeast count: Int) {
        condition.withLock {
            let deadline = Date().addingTimeInterval(60)  // a server that acknowledges nothing is killed anyway
            while (acknowledged[server]?.count ?? 0) < count, condition.wait(until: deadline) {}
        }
    }

    func waitForKill() {
        condition.withLock {
            while !isKilled { condition.wait() }
        }
    }

    func acknowledgedKeys(onServer server: Int) -> Set<String> { condition.withLock { acknowledged[server] ?? [] } }
    func failures(onServer server: Int) -> [String] { condition.withLock { failed[server] ?? [] } }
}

/// The server the crash test kills, handed to the killing thread.
final class Victim: @unchecked Sendable {
    // @unchecked: only the killing thread uses it until the test checks it afterwards.
    let server: ServerProcess

    init(_ server: ServerProcess) { self.server = server }
}
