import DocumentProtocol
import Foundation
import ServerTestSupport
import Testing

/// A plain `fetch` by one indexed equality is read straight from its line and answered
/// without planning: its answers and errors are byte for byte those of the general path,
/// which answers the same request when it comes inside a batch.
@Suite struct DirectFetchTests {
    static let model = """
    {"entities": [{"name": "Song",
                   "attributes": [{"name": "title", "type": "string"}, {"name": "plays", "type": "int64"},
                                  {"name": "code", "type": "int32"}, {"name": "name", "type": "string"},
                                  {"name": "rating", "type": "double"}, {"name": "genre", "type": "string", "optional": true}],
                   "fetchIndexes": [{"name": "byTitle", "elements": [{"property": "title"}]},
                                    {"name": "byPlays", "elements": [{"property": "plays", "order": "descending"}]},
                                    {"name": "byCodeTitle", "elements": [{"property": "code"}, {"property": "title", "order": "descending"}]},
                                    {"name": "byName", "elements": [{"property": "name", "caseInsensitive": true}]},
                                    {"name": "byRating", "elements": [{"property": "rating"}]}]},
                  {"name": "Animal", "attributes": [{"name": "name", "type": "string"}],
                   "fetchIndexes": [{"name": "byAnimalName", "elements": [{"property": "name"}]}]},
                  {"name": "Dog", "parent": "Animal", "attributes": [{"name": "age", "type": "int16"}],
                   "fetchIndexes": [{"name": "byDogName", "elements": [{"property": "name"}]},
                                    {"name": "byAge", "elements": [{"property": "age"}]}]}]}
    """

    /// A server on the model above with 150 Songs (some titles twice, `code` shared by 30)
    /// and 12 Dogs and 3 Animals.
    private static func server(in directory: TemporaryDirectory) throws -> (ServerProcess, LineClient) {
        let modelURL = directory.file("model.json")
        try Data(model.utf8).write(to: modelURL)
        let server = try ServerProcess(in: directory, arguments: ["--model", modelURL.path])
        let client = try server.connect()
        var inserts: [[String: Any]] = (0..<150).map { n in
            ["id": "s\(n)", "entity": "Song",
             "values": ["title": "t\(n % 120)", "plays": n % 50, "code": n % 5, "name": "Name\(n % 10)", "rating": Double(n % 7)]]
        }
        inserts += (0..<12).map { n in ["id": "d\(n)", "entity": "Dog", "values": ["name": "n\(n % 4)", "age": n % 6]] }
        inserts += (0..<3).map { n in ["id": "a\(n)", "entity": "Animal", "values": ["name": "n\(n)"]] }
        _ = try client.result("save", ["insert": inserts])
        return (server, client)
    }

    /// The answer of `line` alone, and of `line` as the one request of a batch: the general path's answer.
    private static func bothAnswers(_ line: String, _ client: LineClient) throws -> (direct: String, general: String) {
        let direct = try client.exchange(line)
        let batch = try client.exchange("[\(line)]")
        return (direct, String(batch.dropFirst().dropLast()))
    }

    private static let formats = [
        "title == %@", "plays == %d", "title == %@", "plays == %d", "code == %d", "name == %@", "name ==[c] %@", "rating == %@", "genre == %@", "age == %d",
        "name == %@", "title == %d", "plays == %@", "title == 't7'", "plays == 7", "%K == %@", "title == %@ AND plays == %d",
        "plays > %d", "title BEGINSWITH %@", "nope == %d", "title ==", "ANY title == %@", "title != %@", "SELF == %@",
    ]

    /// A random `fetch` line: members in any order, whitespace anywhere, an entity, a format
    /// and arguments from the pools above, now and then a page, a member the direct reader
    /// leaves alone, or a value that is not plain.
    private static func randomLine(_ random: inout SplitMix64) -> String {
        func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }
        func space() -> String { pick(["", "", " ", "\t", " \r "]) }
        let id = pick(["1", "7", "-0", "\"text\"", "12345678901234567890", "1", "7", "\"x\"", "1.5", "null", "\"\\u0041\""])
        func argument() -> String {
            pick([String(Int.random(in: -2...60, using: &random)), "\"t\(Int.random(in: 0...130, using: &random))\"",
                  "\"Name\(Int.random(in: 0...11, using: &random))\"", "\"name3\"", "\"n\(Int.random(in: 0...4, using: &random))\"",
                  "9223372036854775808", "-9223372036854775808", "2.5", "1e2", "true", "null", "\"t\\u0037\"", "\"títle\"",
                  "{\"date\":0}", "\"title\""])
        }
        var params = [#""entity"\#(space()):\#(space())"\#(pick(["Song", "Song", "Song", "Dog", "Animal", "Nope"]))""#]
        if Int.random(in: 0..<12, using: &random) > 0 {
            params.append(#""predicate":\#(space())"\#(pick(formats))""#)
        }
        if Int.random(in: 0..<6, using: &random) > 0 {
            params.append(#""arguments":[\#((0..<pick([0, 1, 1, 1, 2])).map { _ in space() + argument() + space() }.joined(separator: ","))]"#)
        }
        if Int.random(in: 0..<4, using: &random) == 0 { params.append(#""limit":\#(pick(["0", "1", "2", "-1", "1.0", "99999999999999999999"]))"#) }
        if Int.random(in: 0..<4, using: &random) == 0 { params.append(#""offset":\#(pick(["0", "1", "3", "-2"]))"#) }
        if Int.random(in: 0..<4, using: &random) == 0 {
            params.append(#""resultType":"\#(pick(["objects", "ids", "ids", "count", "count", "Count", "nope"]))""#)
        }
        if Int.random(in: 0..<12, using: &random) == 0 {
            params.append(pick([#""explain":true"#, #""sort":[{"key":"plays"}]"#, #""other":1"#, #""includeSubentities":true"#]))
        }
        params.shuffle(using: &random)
        var members = [#""jsonrpc":"2.0""#, #""id"\#(space()):\#(space())\#(id)"#, #""method":\#(space())"fetch""#,
                       #""params":{\#(params.map { space() + $0 + space() }.joined(separator: ","))}"#]
        if Int.random(in: 0..<20, using: &random) == 0 { members.append(#""extra":1"#) }
        members.shuffle(using: &random)
        return space() + "{" + members.map { space() + $0 + space() }.joined(separator: ",") + "}" + space()
    }

    @Test func randomPlainFetchesAreAnsweredByteForByteAsTheGeneralPathAnswersThem() throws {
        let directory = try TemporaryDirectory()
        let (server, client) = try Self.server(in: directory)
        var random = SplitMix64(seed: 17)
        var read = 0, objects = 0
        for round in 0..<3 {
            for _ in 0..<400 {
                let line = Self.randomLine(&random)
                if Array(line.utf8).withUnsafeBytes({ FetchRequestLine.read($0) }) != nil { read += 1 }
                let (direct, general) = try Self.bothAnswers(line, client)
                #expect(direct == general, "round \(round): \(line)")
                if direct.contains(#""objects":[{"#) || direct.contains(#""ids":[""#) || direct.contains(#""count":"#) { objects += 1 }
            }
            // Changes between the rounds: updates that move index keys, deletes, inserts.
            let songs = try client.result("fetch", ["entity": "Song", "predicate": "plays < 10"])["objects"]
            var updates: [[String: Any]] = [], deletes: [[String: Any]] = []
            for index in 0..<min(songs.count ?? 0, 12) {
                let id = try #require(songs[index]["id"].string)
                if index < 8 {
                    updates.append(["id": id, "version": songs[index]["version"].int ?? 0, "values": ["title": "t\(round)", "plays": 7, "code": 9]])
                } else {
                    deletes.append(["id": id, "version": songs[index]["version"].int ?? 0])
                }
            }
            _ = try client.result("save", ["update": updates, "delete": deletes])
        }
        #expect(read > 250, "\(read) lines were plain fetches")
        #expect(objects > 30, "\(objects) answers held objects, IDs or a count")
        try server.stop()
    }

    @Test func aPlainFetchOfAnObjectTheStateJustChangedAnswersItsNewValues() throws {
        let directory = try TemporaryDirectory()
        let (server, client) = try Self.server(in: directory)
        let line = #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"title == %@","arguments":["t5"]}}"#
        let before = try client.request(line)
        #expect(before["result"]["objects"].count == 2)
        let id = try #require(before["result"]["objects"][0]["id"].string)
        _ = try client.result("save", ["update": [["id": id, "version": 1, "values": ["title": "renamed"]]]])
        let after = try client.request(line)
        #expect(after["result"]["objects"].count == 1)
        #expect(after["result"]["objects"][0]["id"].string != id)
        let renamed = try client.request(line.replacingOccurrences(of: "\"t5\"", with: "\"renamed\""))
        #expect(renamed["result"]["objects"][0]["id"].string == id)
        #expect(renamed["result"]["objects"][0]["version"].int == 2)
        try server.stop()
    }
}
