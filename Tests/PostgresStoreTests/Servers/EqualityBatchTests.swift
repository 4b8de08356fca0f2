import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// Over a bounded cache, the fetches `key == value` of a string (no sort, no page) that reach
/// one event loop while a read runs are read together, one statement for all of them
/// (`LoopFetches`). Each answer is the one a fetch gets alone: the same as the statement of the
/// fetch alone, run on a reader thread for `explain`, gives, on the edge cases of the equality
/// (several matches, none, an empty string, the two Unicode forms of one text, case) and beside
/// fetches that are not read together.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct EqualityBatchTests {
    /// The titles asked for, from many clients at once.
    private static let titles = [
        "song 5", "twin", "caf\u{E9}", "cafe\u{301}", "", "no such song", "Song 5", "song 5 ", "s\u{0}ng",
    ]

    private func fetchLine(_ title: String, explain: Bool = false) throws -> String {
        var params: [String: Any] = ["entity": "Song", "predicate": "title == %@", "arguments": [title]]
        if explain { params["explain"] = true }
        let request: [String: Any] = ["jsonrpc": "2.0", "id": 7, "method": "fetch", "params": params]
        return String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
    }

    /// Songs titled `song N` (N < 20), two titled `twin`, one `café` written decomposed and one
    /// with an empty title.
    private func insertSongs(through client: WireClient) throws {
        var songs = (0..<20).map { ["id": "s\($0)", "entity": "Song", "values": ["title": "song \($0)", "plays": $0]] as [String: Any] }
        songs.append(["id": "t1", "entity": "Song", "values": ["title": "twin", "plays": 100]])
        songs.append(["id": "t2", "entity": "Song", "values": ["title": "twin", "plays": 101]])
        songs.append(["id": "c", "entity": "Song", "values": ["title": "cafe\u{301}", "plays": 102]])
        songs.append(["id": "e", "entity": "Song", "values": ["title": "", "plays": 103]])
        _ = try client.result("save", ["insert": songs])
    }

    /// What a fetch of `title` alone answers: the objects of its `explain` answer (the statement of
    /// the fetch alone, on a reader thread), as the line without the plan; nil for an error.
    private func aloneAnswer(_ title: String, client: WireClient) throws -> String? {
        let explained = try client.exchange(try fetchLine(title, explain: true))
        guard let plan = explained.range(of: #"],"plan":"#) else { return nil }
        return String(explained[..<plan.lowerBound]) + "]}}"
    }

    @Test func fetchesReadTogetherAnswerAsEachAloneByteForByte() throws {
        let servers = try DatabaseServers(count: 1)
        try insertSongs(through: try servers.connect(0))
        // One read at a time on the loop: the fetches that come meanwhile wait and go together.
        let cached = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536", "--database-reads", "2"])
        let reference = try WireClient(port: cached.port)
        var expected: [String: String] = [:]
        for title in Self.titles {
            if let answer = try aloneAnswer(title, client: reference) { expected[title] = answer }
        }
        // The edge cases hold alone: both forms of `café` find the one Song, `twin` two, no other
        // title one of those below.
        #expect(try reference.result("fetch", ["entity": "Song", "predicate": "title == %@", "arguments": ["caf\u{E9}"]]).objects.count == 1)
        #expect(try reference.result("fetch", ["entity": "Song", "predicate": "title == %@", "arguments": ["twin"]]).objects.count == 2)
        #expect(try reference.result("fetch", ["entity": "Song", "predicate": "title == %@", "arguments": [""]]).objects.count == 1)
        #expect(try reference.result("fetch", ["entity": "Song", "predicate": "title == %@", "arguments": ["Song 5"]]).objects.isEmpty)
        // A value PostgreSQL's text cannot hold fails alone, and does not fail the others.
        let withNUL = try reference.exchange(try fetchLine("s\u{0}ng"))
        #expect(withNUL.contains(#""error""#), "\(withNUL)")
        let answers = expected
        let port = cached.port
        let wrong = Findings()
        let group = DispatchGroup()
        for client in 0..<12 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                guard let connection = try? WireClient(port: port) else { return wrong.add("client \(client) could not connect") }
                for request in 0..<45 {
                    let title = Self.titles[(client * 5 + request) % Self.titles.count]
                    do {
                        let answer = try connection.exchange(try fetchLine(title))
                        let wanted = answers[title] ?? withNUL
                        if title == "twin" {
                            // Two matches, in no order the fetch promises: the same objects.
                            if Self.sortedObjects(answer) != Self.sortedObjects(wanted) { wrong.add("twin: \(answer) for \(wanted)") }
                        } else if answer != wanted {
                            wrong.add("\(title.debugDescription): \(answer) for \(wanted)")
                        }
                    } catch {
                        wrong.add("client \(client) request \(request): \(error)")
                    }
                }
            }
        }
        group.wait()
        #expect(wrong.all.isEmpty, "\(wrong.all.count) wrong answers: \(wrong.all.prefix(5))")
    }

    @Test func fetchesNotReadTogetherAreAnsweredAsBefore() throws {
        let servers = try DatabaseServers(count: 1)
        try insertSongs(through: try servers.connect(0))
        let cached = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536"])
        let client = try WireClient(port: cached.port)
        // A number compared with a string, an unknown key, a key path, a case-insensitive
        // equality, a page, a count: each as a fetch alone answers it.
        let mismatch = try client.call("fetch", ["entity": "Song", "predicate": "plays == %@", "arguments": ["x"]])
        #expect(mismatch.errorCode == -32602, "\(mismatch)")
        let unknown = try client.call("fetch", ["entity": "Song", "predicate": "colour == %@", "arguments": ["blue"]])
        #expect(unknown.errorCode == -32602, "\(unknown)")
        let caseless = try client.result("fetch", ["entity": "Song", "predicate": "title ==[c] %@", "arguments": ["SONG 5"]])
        #expect(caseless.objects.count == 1)
        let paged = try client.result("fetch", ["entity": "Song", "predicate": "title == %@", "arguments": ["twin"], "limit": 1])
        #expect(paged.objects.count == 1)
        let counted = try client.result("fetch", ["entity": "Song", "predicate": "title == %@", "arguments": ["twin"], "resultType": "count"])
        #expect(counted["count"] as? Int == 2)
        let ids = try client.result("fetch", ["entity": "Song", "predicate": "title == %@", "arguments": ["song 3"], "resultType": "ids"])
        #expect((ids["ids"] as? [String])?.count == 1)
    }

    /// The objects of an answer line, each as sorted JSON, sorted.
    private static func sortedObjects(_ line: String) -> [String] {
        guard let answer = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let result = answer["result"] as? [String: Any], let objects = result["objects"] as? [Any] else { return [line] }
        return objects.compactMap { object in
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
        }.sorted()
    }
}
