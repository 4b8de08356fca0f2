import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// A server with a bounded cache runs a fetch that one statement answers on the event loop of
/// the client's connection, on connections to the database made there (docs/SCALING.md); any
/// other fetch goes to a reader thread as before. Both give the same answers, errors included,
/// and a connection the database ends is made again. A plain `get` line that misses goes from
/// the fast path to the engine, and is answered as the general way answers it.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct LoopFetchTests {
    /// 3 Albums and 300 Songs (`song N`, N plays, on album N % 3, titled so that their order by
    /// album title is the reverse of the albums' order of insertion); the Songs' IDs in order.
    private func insertSongs(through client: WireClient) throws -> [String] {
        let albums = (0..<3).map { ["id": "a\($0)", "entity": "Album", "values": ["title": "album \(2 - $0)"]] as [String: Any] }
        let songs = (0..<300).map { index in
            ["id": "s\(index)", "entity": "Song", "values": ["title": "song \(index)", "plays": index, "album": "a\(index % 3)"]] as [String: Any]
        }
        let saved = try client.result("save", ["insert": albums + songs])
        return try (0..<300).map { try saved.id("s\($0)") }
    }

    @Test func fetchesFromManyClientsAtOnceEachGetTheirOwnAnswer() throws {
        let servers = try DatabaseServers(count: 1)
        let ids = try insertSongs(through: try servers.connect(0))
        let cached = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536", "--database-reads", "2"])
        let port = cached.port
        let wrong = Findings()
        let group = DispatchGroup()
        for client in 0..<16 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                guard let connection = try? WireClient(port: port) else { return wrong.add("client \(client) could not connect") }
                for request in 0..<30 {
                    let index = (client * 37 + request * 11) % ids.count
                    do {
                        let found = try connection.result("fetch", ["entity": "Song", "predicate": "title == %@", "arguments": ["song \(index)"]])
                        let got = found.objects.map { $0?["id"] as? String }
                        if got != [ids[index]] { wrong.add("client \(client) request \(request): \(got) for \(ids[index])") }
                    } catch {
                        wrong.add("client \(client) request \(request): \(error)")
                    }
                }
            }
        }
        group.wait()
        #expect(wrong.all.isEmpty, "\(wrong.all.count) wrong answers: \(wrong.all.prefix(5))")
    }

    @Test func everyKindOfFetchAnswersAsTheGeneralWay() throws {
        let servers = try DatabaseServers(count: 1)
        let ids = try insertSongs(through: try servers.connect(0))
        let cached = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536"])
        let client = try WireClient(port: cached.port)
        // One statement: a count, a page of IDs in SQL's order, nothing found.
        let count = try client.result("fetch", ["entity": "Song", "predicate": "plays >= %@", "arguments": [250], "resultType": "count"])
        #expect(count["count"] as? Int == 50)
        let page = try client.result("fetch", ["entity": "Song", "predicate": "plays < %@", "arguments": [100],
                                               "sort": [["key": "plays", "ascending": false]], "limit": 3, "offset": 1, "resultType": "ids"])
        #expect(page["ids"] as? [String] == [ids[98], ids[97], ids[96]])
        let none = try client.result("fetch", ["entity": "Song", "predicate": "title == %@", "arguments": ["no such song"]])
        #expect(none.objects.isEmpty)
        // Sorted by a key path SQL does not order: a reader thread sorts what the statement found.
        let byAlbum = try client.result("fetch", ["entity": "Song", "predicate": "plays < %@", "arguments": [3],
                                                  "sort": [["key": "album.title", "ascending": true]], "resultType": "ids"])
        #expect(byAlbum["ids"] as? [String] == [ids[2], ids[1], ids[0]])
        // `explain` says how the database answered.
        let explained = try client.result("fetch", ["entity": "Song", "predicate": "title == %@", "arguments": ["song 7"], "explain": true])
        #expect(((explained["plan"] as? [String: Any])?["access"] as? String) == "sql", "\(explained)")
        // The request's faults are answered as such, by the event loop too.
        let unknown = try client.call("fetch", ["entity": "Song", "predicate": "colour == %@", "arguments": ["blue"]])
        #expect(unknown.errorCode == -32602, "\(unknown)")
    }

    @Test func aPlainFetchReadFromItsLineIsAnsweredByteForByteAsTheGeneralWayAnswersIt() throws {
        let servers = try DatabaseServers(count: 1)
        _ = try insertSongs(through: try servers.connect(0))
        // The same cache on the same database; debug logging sends every line the general way.
        let fast = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536"])
        let general = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536", "--log-level", "debug"])
        let fastClient = try WireClient(port: fast.port), generalClient = try WireClient(port: general.port)
        func fetch(_ params: String, id: String = "7") -> String { #"{"jsonrpc":"2.0","id":\#(id),"method":"fetch","params":{\#(params)}}"# }
        let lines = [
            fetch(#""entity":"Song","predicate":"title == %@","arguments":["song 5"]"#),
            fetch(#""entity":"Song","predicate":"title == %@","arguments":["song 6"]"#, id: #""a-string-id""#),
            fetch(#""entity":"Song","predicate":"plays >= %@ AND plays < %@","arguments":[10,14],"limit":2,"offset":1"#),
            fetch(#""entity":"Song","predicate":"plays < %@","arguments":[5],"resultType":"ids""#),
            fetch(#""entity":"Song","predicate":"plays < %@","arguments":[50],"resultType":"count""#),
            fetch(#""entity":"Album""#),
            fetch(#""entity":"Song","predicate":"title BEGINSWITH %@","arguments":["song 29"],"limit":3"#),
            fetch(#""entity":"Song","predicate":"album.title == %@","arguments":["album 1"],"resultType":"count""#),
            fetch(#""entity":"Song","predicate":"plays == %@","arguments":[9223372036854775807]"#),
            // Errors: each answered by the general way, the same.
            fetch(#""entity":"Nope""#),
            fetch(#""entity":"Song","resultType":"rows""#),
            fetch(#""entity":"Song","predicate":"colour == %@","arguments":["blue"]"#),
            fetch(#""entity":"Song","predicate":"title ==","arguments":[]"#),
            fetch(#""entity":"Song","predicate":"title == %@","arguments":[]"#),
            fetch(#""entity":"Song","arguments":[1]"#),
            fetch(#""entity":"Song","predicate":"title == %@","arguments":["x"],"limit":-1"#),
        ]
        for line in lines {
            let answers = (fast: try fastClient.exchange(line), general: try generalClient.exchange(line))
            #expect(answers.fast == answers.general, "\(line)")
        }
    }

    @Test func aPlainGetThatMissesIsAnsweredByteForByteAsTheGeneralWayAnswersIt() throws {
        let servers = try DatabaseServers(count: 1)
        let ids = try insertSongs(through: try servers.connect(0))
        // A cache of 64 KiB holds a few hundred objects at most: most of these gets miss, and the
        // fast way hands them to the engine straight from their lines.
        let fast = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536"])
        let general = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536", "--log-level", "debug"])
        let fastClient = try WireClient(port: fast.port), generalClient = try WireClient(port: general.port)
        func get(_ ids: [String], id: String = "3") -> String {
            let list = ids.map { "\"\($0)\"" }.joined(separator: ",")
            return #"{"jsonrpc":"2.0","id":\#(id),"method":"get","params":{"ids":[\#(list)]}}"#
        }
        let song = ids[7], reference = song.split(separator: "/").last.map(String.init) ?? ""
        let prefix = String(song.dropLast(reference.count))
        let lines = [
            get([ids[0]]),
            get([ids[1], ids[2], ids[1]], id: #""a-string-id""#),
            get(Array(ids[10..<74])),  // 64: the most the fast way takes
            get(Array(ids[100..<165])),  // 65: the general way
            get([ids[20], prefix + "999999", ids[21]]),  // no such Song: missing
            get([prefix.replacingOccurrences(of: "/Song/", with: "/Album/") + reference]),  // a Song's reference as an Album's
            get(["graph://00000000-0000-0000-0000-000000000000/Song/1"]),  // another store's
            get([ids[30], "not an id"]),  // an error, answered by the general way
            get([]),
            get([ids[0]]),  // again: a hit or a miss, the same answer
        ]
        for line in lines {
            let answers = (fast: try fastClient.exchange(line), general: try generalClient.exchange(line))
            #expect(answers.fast == answers.general, "\(line)")
        }
    }

    @Test func aConnectionTheDatabaseEndsIsMadeAgain() throws {
        let servers = try DatabaseServers(count: 1)
        let ids = try insertSongs(through: try servers.connect(0))
        let cached = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536"])
        let client = try WireClient(port: cached.port)
        let fetch: [String: Any] = ["entity": "Song", "predicate": "title == %@", "arguments": ["song 5"]]
        #expect(try client.result("fetch", fetch).objects.first??["id"] as? String == ids[5])
        let name = servers.database.lastPathComponent
        _ = try PostgresCluster.shared().psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid()", database: name)
        // The fetch on an ended connection fails saying the store is unavailable; the next one
        // gets a new connection.
        var answered = false
        for _ in 0..<3 where !answered {
            let answer = try client.call("fetch", fetch)
            if let code = answer.errorCode {
                #expect(code == -32006, "\(answer)")
            } else {
                answered = (answer["result"] as? [String: Any])?.objects.first??["id"] as? String == ids[5]
            }
        }
        #expect(answered)
    }
}
