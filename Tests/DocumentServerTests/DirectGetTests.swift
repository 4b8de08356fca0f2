import DocumentProtocol
import Foundation
import ServerTestSupport
import Testing

/// A plain `get` is read straight from its line (not through a JSON tree) and its IDs by a
/// per-connection reader: its answers and errors are byte for byte those of the general path,
/// which answers the same request when it comes inside a batch.
@Suite struct DirectGetTests {
    /// The answer of `line` alone, and of `line` as the one request of a batch (its brackets
    /// taken off): the general path's answer.
    private static func bothAnswers(_ line: String, _ client: LineClient) throws -> (direct: String, general: String) {
        let direct = try client.exchange(line)
        let batch = try client.exchange("[\(line)]")
        return (direct, String(batch.dropFirst().dropLast()))
    }

    /// `get` lines for the sample data: plain ones and every kind of unusual one.
    private static func lines(_ data: SampleData) -> [String] {
        let song = data["s1"], album = data["b1"]
        let store = song.split(separator: "/")[1]
        let reference = song.split(separator: "/").last.map(String.init) ?? ""
        let ids = [song, album, data["s2"], data["a1"], "graph://\(store)/Song/999999", "graph://\(store)/Album/\(reference)",
                   "graph://other/Song/\(reference)", "graph://\(store)/Song/0\(reference)", "graph://\(store)/Song/-\(reference)",
                   "graph://\(store)/Song/x\(reference)", "graph://\(store)/Nope/\(reference)", "graph:///Song/\(reference)",
                   "graph://\(store)/Song/99999999999999999999", "graph://\(store)/Song/", "not a uri", "graph://sté/Song/1"]
        var lines: [String] = []
        for (index, id) in ids.enumerated() {
            lines.append(#"{"jsonrpc":"2.0","id":\#(index),"method":"get","params":{"ids":["\#(id)"]}}"#)
        }
        lines += [
            #"{"jsonrpc":"2.0","id":"text id","method":"get","params":{"ids":["\#(song)","\#(album)","\#(song)"]}}"#,
            #"{"params":{"ids":["\#(data["s3"])"]},"method":"get","id":-0,"jsonrpc":"2.0"}"#,
            #" { "jsonrpc" : "2.0" , "id" : 12345678901234567890 , "method" : "get" , "params" : { "ids" : [ "\#(song)" , "\#(data["s4"])" ] } } "#,
            #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":[]}}"#,
            #"{"jsonrpc":"2.0","id":1.5e2,"method":"get","params":{"ids":["\#(song)"]}}"#,
            #"{"jsonrpc":"2.0","id":"\u0041","method":"get","params":{"ids":["\#(song)"]}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"get","params":{"ids":["\#(song.replacingOccurrences(of: "/", with: "\\/"))"]}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"get","params":{"ids":["\#(song)"],"versions":[1]}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"get","params":{"ids":["\#(song)"],"other":1}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"get","params":{"ids":"\#(song)"}}"#,
            #"{"jsonrpc":"2.0","id":6,"method":"get","params":{}}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"get"}"#,
            #"{"jsonrpc":"2.0","id":8,"method":"get","params":{"ids":[7]}}"#,
            #"{"jsonrpc":"2.0","id":9,"method":"get","params":{"ids":["\#(song)"]},"extra":true}"#,
            #"{"jsonrpc":"2.0","id":10,"method":"Get","params":{"ids":["\#(song)"]}}"#,
        ]
        return lines
    }

    @Test func aPlainGetIsAnsweredByteForByteAsTheGeneralPathAnswersIt() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let data = try SampleData.insert(through: client)
        for line in Self.lines(data) {
            let (direct, general) = try Self.bothAnswers(line, client)
            #expect(direct == general, "\(line)")
        }
        // Twice: now from the cache of wire forms; then after a save changed an object.
        for line in Self.lines(data) {
            let (direct, general) = try Self.bothAnswers(line, client)
            #expect(direct == general, "\(line)")
        }
        _ = try client.result("save", ["update": [["id": data["s1"], "version": 1, "values": ["plays": 99]]]])
        let changed = try client.request(#"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["\#(data["s1"])"]}}"#)
        #expect(changed["result"]["objects"][0]["version"].int == 2)
        #expect(changed["result"]["objects"][0]["values"]["plays"].int == 99)
        for line in Self.lines(data) {
            let (direct, general) = try Self.bothAnswers(line, client)
            #expect(direct == general, "\(line)")
        }
        try server.stop()
    }

    @Test func aPlainGetNearTheAnswerLimitIsAnsweredAsTheGeneralPathAnswersIt() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-answer-bytes", "1024"])
        let client = try server.connect()
        // Titles whose answers step through the limit 4 bytes at a time, and a few shorter.
        let lengths = [100, 151, 217, 333] + Array(stride(from: 700, through: 830, by: 4))
        let insert = lengths.enumerated().map { index, length -> [String: Any] in
            ["id": "t\(index)", "entity": "Song", "values": ["title": String(repeating: "x", count: length), "plays": index]]
        }
        var ids: [String: String] = [:]
        for start in stride(from: 0, to: insert.count, by: 5) {  // a save's answer must fit the limit too
            let saved = try client.result("save", ["insert": Array(insert[start..<min(start + 5, insert.count)])])
            ids.merge(try #require(saved["ids"].stringValues)) { $1 }
        }
        let songs = (0..<lengths.count).compactMap { ids["t\($0)"] }
        #expect(songs.count == lengths.count)
        var lines = songs.map { [$0] }
        for count in 2...6 {
            for first in 0..<4 { lines.append((0..<count).map { songs[(first + $0) % 4] }) }
        }
        var refused = 0, largest = 0
        for (index, chosen) in lines.enumerated() {
            let line = #"{"jsonrpc":"2.0","id":\#(index),"method":"get","params":{"ids":[\#(chosen.map { "\"\($0)\"" }.joined(separator: ","))]}}"#
            let (direct, general) = try Self.bothAnswers(line, client)
            #expect(direct == general, "\(line)")
            if direct.contains(#""error":"#) { refused += 1 } else { largest = max(largest, direct.utf8.count) }
        }
        // Answers up to the limit, and refused ones beyond it.
        #expect(refused > 0)
        #expect(largest > 1000)
        try server.stop()
    }

    /// A random `get` line: members in any order, whitespace anywhere, ids of every form,
    /// IDs from `pool`, now and then a member or an escape the direct reader leaves alone.
    private static func randomLine(_ pool: [String], _ random: inout SplitMix64) -> String {
        func space() -> String {
            (0..<Int.random(in: 0...2, using: &random)).map { _ in [" ", "\t", "\r"].randomElement(using: &random) ?? "" }.joined()
        }
        func text(_ count: Int) -> String {
            String((0..<count).map { _ in Character(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &random))) })
                .replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        }
        let id = [String(Int64.random(in: -1_000...1_000, using: &random)), String(UInt64.random(in: 0...UInt64.max, using: &random)),
                  "\"\(text(Int.random(in: 0...8, using: &random)))\"", "1.5", "null"].randomElement(using: &random) ?? "1"
        let ids = (0..<Int.random(in: 0...4, using: &random)).map { _ in "\(space())\"\(pool.randomElement(using: &random) ?? "")\"\(space())" }
        var members = [#""jsonrpc"\#(space()):\#(space())"2.0""#, #""id"\#(space()):\#(space())\#(id)"#, #""method":\#(space())"get""#,
                       #""params":{\#(space())"ids"\#(space()):[\#(ids.joined(separator: ","))]}"#]
        if Int.random(in: 0..<10, using: &random) == 0 { members.append(#""extra":1"#) }
        members.shuffle(using: &random)
        return space() + "{" + members.map { space() + $0 + space() }.joined(separator: ",") + "}" + space()
    }

    @Test func randomPlainGetsAreAnsweredByteForByteAsTheGeneralPathAnswersThem() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let data = try SampleData.insert(through: client)
        let song = data["s1"]
        let store = song.split(separator: "/")[1]
        let pool = data.ids.values.sorted() + ["graph://\(store)/Song/999999", "graph://\(store)/Album/1", "graph://other/Song/1",
                                               "graph://\(store)/Song/01", "graph://\(store)/Nope/1", "graph:///Song/1", "graph://\(store)/Song/a%41",
                                               "not a uri", "graph://\(store)/Song/\\u0031"]
        var random = SplitMix64(seed: 15)
        var direct = 0
        for _ in 0..<300 {
            let line = Self.randomLine(pool, &random)
            if Array(line.utf8).withUnsafeBytes({ GetRequestLine.read($0) }) != nil { direct += 1 }
            let (answer, general) = try Self.bothAnswers(line, client)
            #expect(answer == general, "\(line)")
        }
        #expect(direct > 100)  // most lines take the direct path
        try server.stop()
    }

    @Test func aServerWithATokenAnswersAPlainGetOnlyAfterHello() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--auth-token", "secret"])
        let client = try server.connect()
        let line = #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["graph://s/Song/1"]}}"#
        let refused = try client.request(line)
        #expect(refused["error"]["code"].int == -32004)
        _ = try client.result("hello", ["token": "secret"])
        let answered = try client.request(line)
        #expect(answered["result"]["missing"].strings == ["graph://s/Song/1"])
        try server.stop()
    }
}
