import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// Servers over PostgreSQL with a bounded cache (`--cache-bytes`, docs/SCALING.md): they load
/// nothing at start, read what their cache misses from the database, run fetches as SQL, and
/// keep their cache coherent with the other servers' commits.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct BoundedCacheTests {
    /// `count` Tags saved through `client`, in saves of 2,000; their IDs in order.
    private func insertTags(_ count: Int, through client: WireClient) throws -> [String] {
        var ids: [String] = []
        for start in stride(from: 0, to: count, by: 2_000) {
            let inserts = (start..<min(start + 2_000, count)).map { ["id": "t\($0)", "entity": "Tag", "values": ["label": "tag \($0)"]] as [String: Any] }
            let saved = try client.result("save", ["insert": inserts])
            for index in start..<min(start + 2_000, count) { ids.append(try saved.id("t\(index)")) }
        }
        return ids
    }

    @Test func aServerWithACacheStartsWithoutLoadingAndAnswersFromTheDatabase() throws {
        let servers = try DatabaseServers(count: 1)
        let ids = try insertTags(6_000, through: try servers.connect(0))
        // 64 KiB holds a few hundred Tags: most reads miss.
        let cached = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536"])
        #expect(cached.log.contains("objects=0"), "it loaded objects at start: \(cached.log)")
        let client = try WireClient(port: cached.port)
        for index in stride(from: 0, to: ids.count, by: 7) {
            let got = try client.result("get", ["ids": [ids[index], ids[(index * 31) % ids.count]]])
            #expect(got.objects.first??["values"].flatMap { ($0 as? [String: Any])?["label"] as? String } == "tag \(index)")
            #expect(got.objects.last??["id"] as? String == ids[(index * 31) % ids.count])
        }
        let count = try client.result("fetch", ["entity": "Tag", "resultType": "count"])
        #expect(count["count"] as? Int == 6_000)
        let found = try client.result("fetch", ["entity": "Tag", "predicate": "label == %@", "arguments": ["tag 4321"], "explain": true])
        #expect(found.objects.first??["id"] as? String == ids[4321])
        #expect(((found["plan"] as? [String: Any])?["access"] as? String) == "sql", "\(found)")
        let page = try client.result("fetch", ["entity": "Tag", "predicate": "label BEGINSWITH %@", "arguments": ["tag 59"],
                                               "sort": [["key": "label", "ascending": false]], "limit": 3, "resultType": "ids"])
        #expect(page["ids"] as? [String] == [ids[5999], ids[5998], ids[5997]])
        // The cache keeps to its budget: what it holds is a small part of the store.
        let stats = try client.result("stats")
        let held = ((stats["store"] as? [String: Any])?["objects"] as? Int) ?? -1
        #expect(held >= 0 && held < 1_000, "the cache holds \(held) objects: \(stats)")
        // A missing ID is missing, not an error.
        let missing = try client.result("get", ["ids": [ids[0].replacingOccurrences(of: "/Tag/", with: "/Song/")]])
        #expect((missing["missing"] as? [String])?.count == 1)
    }

    @Test func aFullCacheKeepsAnObjectReadAfterAMissOnlyAtItsSecondMiss() throws {
        let servers = try DatabaseServers(count: 1)
        let ids = try insertTags(60, through: try servers.connect(0))
        // 4 KiB holds about 16 Tags: the cache is full after the first ones read.
        let cached = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "4096"])
        let client = try WireClient(port: cached.port)
        func cache() throws -> [String: Any] { try client.result("stats")["cache"] as? [String: Any] ?? [:] }
        func get(_ id: String) throws {
            let got = try client.result("get", ["ids": [id]])
            #expect(got.objects.first??["id"] as? String == id)
        }
        for id in ids { try get(id) }
        let figures = try cache()
        let declined = figures["declined"] as? Int ?? -1
        #expect(declined >= 30, "objects read once into a full cache were kept: \(figures)")
        // The last one missed once: its second miss keeps it, and it is found in the cache from
        // then on (once the writer has published it).
        let last = try #require(ids.last)
        try get(last)
        var hit = false
        for _ in 0..<50 where !hit {
            let misses = try cache()["misses"] as? Int ?? -1
            try get(last)
            hit = try cache()["misses"] as? Int == misses
            if !hit { usleep(20_000) }
        }
        #expect(hit, "the object kept at its second miss is not found in the cache")
    }

    @Test func aCachedObjectFollowsTheUpdatesOfAnotherServer() throws {
        let servers = try DatabaseServers(count: 2, arguments: ["--cache-bytes", "1048576"])
        let a = try servers.connect(0), b = try servers.connect(1)
        let saved = try a.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "v1"]]]])
        let id = try saved.id("t")
        #expect(try b.result("get", ["ids": [id], "after": saved.seq]).objects.first??["version"] as? Int == 1)
        var version = 1
        for round in 2...40 {
            let updated = try a.result("save", ["update": [["id": id, "version": version, "values": ["label": "v\(round)"]]]])
            version += 1
            let got = try b.result("get", ["ids": [id], "after": updated.seq])
            #expect(got.objects.first??["version"] as? Int == version, "round \(round): \(got)")
            // And a save through the other server names the version it read there.
            if round % 10 == 0 {
                let again = try b.result("save", ["update": [["id": id, "version": version, "values": ["label": "b\(round)"]]]])
                version += 1
                #expect(try a.result("get", ["ids": [id], "after": again.seq]).objects.first??["version"] as? Int == version)
            }
        }
    }

    @Test func readsRacingAnotherServersSavesNeverKeepAnOldVersion() throws {
        // The cache holds the object between misses: a reader that read it from the database just
        // before a commit must not leave that old version in the cache once the commit is applied.
        let servers = try DatabaseServers(count: 2, arguments: ["--cache-bytes", "4096"])
        let a = try servers.connect(0)
        let ids = try insertTags(200, through: a)
        let stop = ManagedAtomicFlag()
        let readers = (0..<4).map { _ in try? WireClient(port: servers.servers[1].port) }
        let group = DispatchGroup()
        let regressions = Findings()
        for reader in readers.compactMap({ $0 }) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var seen: [String: Int] = [:]
                var index = 0
                while !stop.isSet {
                    index = (index + 37) % ids.count
                    let id = ids[index % 8]  // a few hot objects, and the rest to push them out of the tiny cache
                    let other = ids[index]
                    guard let got = try? reader.result("get", ["ids": [id, other]]) else { continue }
                    for object in got.objects.compactMap({ $0 }) {
                        guard let key = object["id"] as? String, let version = object["version"] as? Int else { continue }
                        if version < (seen[key] ?? 0) { regressions.add("\(key): \(seen[key] ?? 0) then \(version)") }
                        seen[key] = max(seen[key] ?? 0, version)
                    }
                }
            }
        }
        var versions = [Int](repeating: 1, count: 8)
        var last: Int64 = 0
        for round in 0..<400 {
            let slot = round % 8
            let saved = try a.result("save", ["update": [["id": ids[slot], "version": versions[slot], "values": ["label": "round \(round)"]]]])
            versions[slot] += 1
            last = saved.seq
        }
        stop.set()
        group.wait()
        #expect(regressions.all.isEmpty, "a connection saw versions go back: \(regressions.all.prefix(5))")
        // Once the last commit is applied, every read gives the last version, however often it is read.
        let b = try servers.connect(1)
        _ = try b.result("get", ["ids": [ids[0]], "after": last])
        for _ in 0..<5 {
            let got = try b.result("get", ["ids": Array(ids[0..<8])])
            #expect(got.objects.map { $0?["version"] as? Int } == versions.map { Optional($0) }, "stale: \(got.objects.map { $0?["version"] ?? "-" })")
        }
    }
}

/// What several threads found, one line each.
final class Findings: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var all: [String] { lock.withLock { lines } }
    func add(_ line: String) { lock.withLock { lines.append(line) } }
}

/// A flag one thread sets and others read.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
