import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// A server with a bounded cache reads the misses of several requests together while its
/// connections to the database are busy (docs/SCALING.md): each request still gets exactly
/// its own objects.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct MissBatchTests {
    /// The ID of a Tag of the same store as `id`, with another reference.
    static func tagID(like id: String, reference: Int) -> String {
        guard let slash = id.range(of: "/Tag/") else { return id }
        return id[..<slash.upperBound] + "\(reference)"
    }

    @Test func concurrentMissesReadTogetherAnswerEachRequestWithItsOwnObjects() throws {
        let servers = try DatabaseServers(count: 1)
        let writer = try servers.connect(0)
        var ids: [String] = []
        for start in stride(from: 0, to: 3_000, by: 1_000) {
            let inserts = (start..<start + 1_000).map { ["id": "t\($0)", "entity": "Tag", "values": ["label": "tag \($0)"]] as [String: Any] }
            let saved = try writer.result("save", ["insert": inserts])
            for index in start..<start + 1_000 { ids.append(try saved.id("t\(index)")) }
        }
        // A cache of one byte and one connection to the database for reads: every
        // `get` misses, and those that come while the connection is busy queue for the next read.
        let cached = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "1", "--database-reads", "1"])
        let port = cached.port, all = ids
        let wrong = Findings()
        let group = DispatchGroup()
        let perClient = 40
        for client in 0..<24 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                guard let connection = try? WireClient(port: port) else {
                    wrong.add("client \(client) could not connect")
                    return
                }
                var generator = SystemRandomNumberGenerator()
                for request in 0..<perClient {
                    let picked = (0..<3).map { _ in Int.random(in: 0..<all.count, using: &generator) }
                    // An ID of no object among them: missing in this answer alone.
                    let absent = Self.tagID(like: all[0], reference: 900_000_000 + client * 1_000 + request)
                    do {
                        let got = try connection.result("get", ["ids": picked.map { all[$0] } + [absent]])
                        let labels = got.objects.map { $0?["values"].flatMap { ($0 as? [String: Any])?["label"] as? String } }
                        let expected: [String?] = picked.map { "tag \($0)" } + [nil]
                        if labels != expected { wrong.add("client \(client) request \(request): \(labels) for \(expected)") }
                        if (got["missing"] as? [String]) != [absent] { wrong.add("client \(client) request \(request): missing \(got["missing"] ?? "none")") }
                    } catch {
                        wrong.add("client \(client) request \(request): \(error)")
                    }
                }
            }
        }
        group.wait()
        #expect(wrong.all.isEmpty, "\(wrong.all.count) wrong answers: \(wrong.all.prefix(5))")
        let cache = try #require(try WireClient(port: cached.port).result("stats")["cache"] as? [String: Any])
        let misses = cache["misses"] as? Int ?? 0, reads = cache["reads"] as? Int ?? 0
        // Every request missed; with 24 clients on one connection, requests queued while it was
        // busy and were read together (each read counts the IDs it read once).
        #expect(reads >= 1 && reads < 24 * perClient, "no two requests were read together: \(cache)")
        #expect(misses >= reads, "\(cache)")
        print("misses of \(24 * perClient) requests over 1 connection: \(misses) objects in \(reads) reads")
    }
}
