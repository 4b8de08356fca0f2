import Foundation
import ServerTestSupport
import Testing

/// A save is never applied and then answered with an error, nor applied without its answer
/// reaching a client that reads (`docs/PROTOCOL.md`, save: "Answers that never lie"): one test
/// per path where that could happen, against the real server.
@Suite struct TruthfulSaveAnswerTests {
    static func insertTags(_ count: Int, prefix: String = "t") -> [String: Any] {
        ["insert": (0..<count).map { ["id": "\(prefix)\($0)", "entity": "Tag", "values": ["label": "\(prefix)\($0)"]] }]
    }

    static func saveLine(id: Int, tags count: Int, prefix: String = "t") throws -> String {
        JSON.text(["jsonrpc": "2.0", "id": id, "method": "save", "params": insertTags(count, prefix: prefix)])
    }

    static func tagCount(_ server: ServerProcess) throws -> Int? {
        try server.connect().result("fetch", ["entity": "Tag", "resultType": "count"])["count"].int
    }

    @Test func aSaveWhoseAnswerCouldPassTheAnswerLimitIsRefusedWithNothingApplied() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-answer-bytes", "1024"])
        let client = try server.connect()
        let answer = try client.call("save", Self.insertTags(100))
        #expect(answer["error"]["code"].int == -32005, "\(answer)")
        #expect(answer["error"]["data"] == JSON(["limit": 1024, "what": "answer"]))
        #expect(try Self.tagCount(server) == 0, "an error answer, so nothing may have been saved")
        // Around the limit: every answer is either a result within the limit or an error that saved nothing.
        var saved = 0
        for count in 1...12 {
            let line = try client.readLine(afterSending: try Self.saveLine(id: count, tags: count, prefix: "n\(count)-"))
            #expect(line.utf8.count <= 1024)
            let answer = try JSON(parsing: line)
            if answer["error"].isMissing {
                saved += count
                #expect(answer["result"]["ids"].count == count)
            } else {
                #expect(answer["error"]["data"]["what"].string == "answer", "\(answer)")
            }
            #expect(try Self.tagCount(server) == saved, "after a save of \(count): \(line)")
        }
        #expect(saved > 0, "small saves fit")
        try server.stop()
    }

    @Test func aSaveInABatchIsNotAppliedWhenItsAnswerCouldPassTheAnswerLimit() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-answer-bytes", "1024"])
        let client = try server.connect()
        let line = try client.readLine(afterSending: "[" + [try Self.saveLine(id: 1, tags: 100), try Self.saveLine(id: 2, tags: 1, prefix: "small")]
            .joined(separator: ",") + "]")
        let answers = try JSON(parsing: line)
        #expect(answers[0]["error"]["data"] == JSON(["limit": 1024, "what": "answer"]), "\(answers[0])")
        #expect(answers[1]["result"]["ids"].count == 1, "\(answers[1])")
        #expect(try Self.tagCount(server) == 1, "only the save answered with a result was applied")
        try server.stop()
    }

    @Test func aSaveInABatchIsNotAppliedWhenItsAnswerCouldPassWhatIsLeftOfTheBatchAnswerLimit() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-batch-answer-bytes", "2048"])
        let client = try server.connect()
        _ = try client.result("save", Self.insertTags(8, prefix: "seed"))
        // The fetch answers about 1,000 bytes; the save's answer (about 1,500 bytes) would not fit after it.
        let fetch = #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Tag"}}"#
        let batch = "[" + [fetch, try Self.saveLine(id: 2, tags: 12), #"{"jsonrpc":"2.0","id":3,"method":"ping"}"#].joined(separator: ",") + "]"
        let line = try client.readLine(afterSending: batch)
        #expect(line.utf8.count <= 2048)
        let answers = try JSON(parsing: line)
        #expect(answers[0]["result"]["objects"].count == 8, "\(answers[0])")
        #expect(answers[1]["error"]["data"] == JSON(["limit": 2048, "what": "batchAnswer"]), "\(answers[1])")
        #expect(answers[2]["error"]["data"]["what"].string == "batchAnswer", "the requests after it are not run: \(answers[2])")
        #expect(try Self.tagCount(server) == 8, "the save answered with an error was not applied")
        // Alone, the same save fits.
        #expect(try client.call("save", Self.insertTags(12))["result"]["ids"].count == 12)
        try server.stop()
    }

    @Test func aSaveInProgressWhenALineTooLongArrivesIsAnsweredBeforeTheConnectionCloses() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-line-bytes", "1024"])
        let client = try server.connect()
        // One write: the save reaches the writer, then the decoder meets the long line.
        try client.send(try Self.saveLine(id: 1, tags: 10) + "\n" + String(repeating: "x", count: 4000) + "\n")
        let text = String(decoding: try client.bytesUntilClosed(), as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "the save's answer, then the error: \(text)")
        let first = try JSON(parsing: lines.first ?? "")
        #expect(first["id"].int == 1 && first["result"]["ids"].count == 10, "\(text)")
        #expect(try JSON(parsing: lines.last ?? "")["error"]["data"]["what"].string == "line", "\(text)")
        #expect(try Self.tagCount(server) == 10)
        try server.stop()
    }

    @Test func aSaveInProgressWhenTooManyIncompleteBytesArriveIsAnsweredOrNotApplied() throws {
        let directory = try TemporaryDirectory()
        // The save's line (about 55 KB, read in pieces) fits; the bytes after it do not.
        let server = try ServerProcess(in: directory, arguments: ["--max-buffered-bytes", "65536"])
        var saved = 0
        for round in 0..<5 {
            let client = try server.connect()
            try client.sendLine(try Self.saveLine(id: 1, tags: 1000, prefix: "r\(round)-"))
            usleep(UInt32(round) * 1000)
            try client.send(String(repeating: "x", count: 100_000))  // no newline: bytes the server must hold
            let text = String(decoding: try client.bytesUntilClosed(), as: UTF8.self)
            let lines = text.split(separator: "\n").map(String.init)
            #expect(try JSON(parsing: lines.last ?? "")["error"]["data"]["what"].string == "bufferedBytes", "\(text.suffix(300))")
            if lines.count == 2 {
                #expect(try JSON(parsing: lines[0])["result"]["ids"].count == 1000, "\(text.prefix(300))")
                saved += 1000
            }
            #expect(try Self.tagCount(server) == saved, "round \(round): a save is applied exactly when it was answered (\(lines.count) lines)")
        }
        try server.stop()
    }

    @Test func aSaveHasNoTimeBudgetThatCouldRunOutAfterItsCommit() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--request-time-limit", "0.001"])
        let client = try server.connect()
        let answer = try client.call("save", Self.insertTags(3000))
        #expect(answer["result"]["ids"].count == 3000, "\(answer["error"])")
        #expect(try Self.tagCount(server) == 3000)
        try server.stop()
    }

    @Test func inABatchEachSaveKeepsItsOwnAnswerWhenALaterElementFailsOrClosesTheConnection() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--auth-token", "secret"])
        let client = try server.connect()
        _ = try client.result("hello", ["token": "secret"])
        let failing = #"{"jsonrpc":"2.0","id":2,"method":"save","params":{"insert":[{"id":"x","entity":"Tag","values":{"label":null}}]}}"#
        let wrongHello = #"{"jsonrpc":"2.0","id":3,"method":"hello","params":{"token":"wrong"}}"#
        try client.sendLine("[" + [try Self.saveLine(id: 1, tags: 2), failing, wrongHello, try Self.saveLine(id: 4, tags: 1, prefix: "late")]
            .joined(separator: ",") + "]")
        let text = String(decoding: try client.bytesUntilClosed(), as: UTF8.self)
        let answers = try JSON(parsing: text.split(separator: "\n").first.map(String.init) ?? "")
        #expect(answers.count == 3, "the save, the failed save, the hello; then the connection closes: \(text)")
        #expect(answers[0]["result"]["ids"].count == 2, "\(text)")
        #expect(answers[1]["error"]["code"].int == -32002, "\(text)")
        #expect(answers[2]["error"]["code"].int == -32004, "\(text)")
        let other = try server.connect()
        _ = try other.result("hello", ["token": "secret"])
        let labels = try other.result("fetch", ["entity": "Tag", "resultType": "count"])["count"].int
        #expect(labels == 2, "exactly the save answered with a result")
        try server.stop()
    }
}
