import Foundation
import ServerTestSupport
import Testing

/// The limits on batches and answers (`docs/PROTOCOL.md`, Limits), against the real server.
@Suite struct LimitTests {
    static let ping = #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#

    /// Inserts `count` tags with labels of `length` characters.
    static func insertTags(_ count: Int, length: Int, through client: LineClient) throws {
        let insert = (0..<count).map { index -> [String: Any] in
            ["id": "t\(index)", "entity": "Tag", "values": ["label": String(format: "%04d", index) + String(repeating: "x", count: length - 4)]]
        }
        _ = try client.result("save", ["insert": insert])
    }

    @Test func aBatchWithMoreRequestsThanTheLimitIsRefusedWholeWithTooLarge() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-batch-requests", "3"])
        let client = try server.connect()
        let three = "[" + (1...3).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"ping"}"# }.joined(separator: ",") + "]"
        #expect(try client.request(three).count == 3)
        let insert = #"{"jsonrpc":"2.0","id":9,"method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"x"}}]}}"#
        let four = "[" + (1...3).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"ping"}"# }.joined(separator: ",") + "," + insert + "]"
        let answer = try client.request(four)
        #expect(answer["id"].isNull, "one error for the whole batch, not an array: \(answer)")
        #expect(answer["error"]["code"].int == -32005)
        #expect(answer["error"]["data"] == JSON(["limit": 3, "what": "batch"]))
        #expect(try client.result("fetch", ["entity": "Tag", "resultType": "count"])["count"].int == 0, "no request of the batch ran")
        try server.stop()
    }

    @Test func aRequestWhoseAnswerWouldPassTheAnswerLimitGetsTooLargeAndTheConnectionStaysUsable() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-answer-bytes", "4096"])
        let client = try server.connect()
        try Self.insertTags(20, length: 400, through: client)
        for params: [String: Any] in [["entity": "Tag"], ["entity": "Tag", "resultType": "objects", "sort": [["key": "label"]]]] {
            let answer = try client.call("fetch", params)
            #expect(answer["error"]["code"].int == -32005, "\(answer)")
            #expect(answer["error"]["data"] == JSON(["limit": 4096, "what": "answer"]))
        }
        let ids = try client.result("fetch", ["entity": "Tag", "resultType": "ids"])["ids"].strings ?? []
        #expect(ids.count == 20)
        // get: from the store thread, then (the same objects) from the cache of wire forms.
        for _ in 0..<2 {
            let answer = try client.call("get", ["ids": ids])
            #expect(answer["error"]["code"].int == -32005, "\(answer)")
            #expect(answer["error"]["data"]["what"].string == "answer")
        }
        let page = try client.result("fetch", ["entity": "Tag", "limit": 5])
        #expect(page["objects"].count == 5)
        #expect(try client.result("get", ["ids": Array(ids.prefix(5))])["objects"].count == 5)
        try server.stop()
    }

    @Test func onceABatchsAnswersReachTheLimitItsRemainingRequestsAreNotRunAndGetTooLarge() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-batch-answer-bytes", "8192"])
        let client = try server.connect()
        try Self.insertTags(10, length: 200, through: client)
        // Each fetch answers about 3 KB: two fit, the third does not; the save after it must not run.
        let fetch = { (id: Int) in #"{"jsonrpc":"2.0","id":\#(id),"method":"fetch","params":{"entity":"Tag"}}"# }
        let save = #"{"jsonrpc":"2.0","id":9,"method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"late"}}]}}"#
        let line = try client.readLine(afterSending: "[" + [fetch(1), fetch(2), fetch(3), save, #"{"jsonrpc":"2.0","method":"ping"}"#].joined(separator: ",") + "]")
        #expect(line.utf8.count <= 8192)
        let answers = try JSON(parsing: line)
        #expect(answers.count == 4, "the notification gets no answer")
        #expect(answers[0]["result"]["objects"].count == 10)
        #expect(answers[1]["result"]["objects"].count == 10)
        for index in 2...3 {
            #expect(answers[index]["error"]["code"].int == -32005, "\(answers[index])")
            #expect(answers[index]["error"]["data"] == JSON(["limit": 8192, "what": "batchAnswer"]))
        }
        #expect(answers[3]["id"].int == 9)
        #expect(try client.result("fetch", ["entity": "Tag", "resultType": "count"])["count"].int == 10, "the save was not run")
        try server.stop()
    }

    @Test func theLimitsAreServeOptionsWithTheirDefaultsInTheHelpAndOutOfRangeValuesAreRefused() throws {
        let help = try runDocServer(["serve", "--help"])
        for text in ["--max-batch-requests", "[default: 256]", "--max-answer-bytes", "--max-batch-answer-bytes", "--idle-timeout",
                     "[default: 300]", "--max-connections", "[default: 512]", "--max-buffered-bytes", "--wire-cache-bytes", "[default: 67108864 (64 MiB)]"] {
            #expect(help.output.contains(text), "\(text) in serve --help")
        }
        for arguments in [["--max-batch-requests", "0"], ["--max-answer-bytes", "10"], ["--idle-timeout=-1"], ["--max-connections", "0"],
                          ["--wire-cache-bytes=-1"]] {
            let result = try runDocServer(["serve", "--port", "0"] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.errors)")
            #expect(result.errors.contains(arguments[0].split(separator: "=")[0]), "\(arguments): \(result.errors)")
        }
        let fromEnvironment = try runDocServer(["serve", "--port", "0"], environment: ["DOCSERVER_MAX_CONNECTIONS": "many"])
        #expect(fromEnvironment.status == 64)
        #expect(fromEnvironment.errors.contains("DOCSERVER_MAX_CONNECTIONS"))
    }
}

extension LineClient {
    /// Sends `text` and a newline, and reads one answer line.
    func readLine(afterSending text: String) throws -> String {
        try sendLine(text)
        return try readLine()
    }
}
