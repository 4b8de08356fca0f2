import Foundation
import ServerTestSupport
import Testing

/// Framing, notifications, batches, pipelining, limits and many clients at once.
@Suite struct ConnectionTests {
    @Test func notificationsAreCarriedOutButNeverAnswered() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        try client.sendLine(#"{"jsonrpc":"2.0","method":"ping"}"#)
        try client.sendLine(#"{"jsonrpc":"2.0","method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"bop"}}]}}"#)
        try client.sendLine(#"{"jsonrpc":"2.0","method":"nope"}"#)
        try client.sendLine(#"{"jsonrpc":"2.0","method":"fetch","params":{"entity":"Nope"}}"#)
        try client.sendLine(#"{"jsonrpc":"2.0","method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{}}]}}"#)
        // The first answer is the one to the first request.
        let count = try client.request(#"{"jsonrpc":"2.0","id":2,"method":"fetch","params":{"entity":"Tag","resultType":"count"}}"#)
        #expect(count["id"].int == 2)
        #expect(count["result"]["count"].int == 1)
        #expect(try client.staysSilent(for: 0.2))
        try server.stop()
    }

    @Test func aBatchIsAnsweredInOrderLeavingOutNotifications() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let batch = """
            [{"jsonrpc":"2.0","id":1,"method":"ping"},\
            {"jsonrpc":"2.0","method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"cool"}}]}},\
            {"jsonrpc":"2.0","id":"two","method":"nope"},\
            {"jsonrpc":"2.0","id":3,"method":"fetch","params":{"entity":"Tag","resultType":"count"}},\
            42,\
            {"jsonrpc":"2.0","id":4,"method":"fetch","params":{"entity":"Nope"}}]
            """
        let answer = try client.request(batch)
        let responses = try #require(answer.array)
        #expect(responses.count == 5, "\(answer)")
        #expect(responses.first?["id"].int == 1)
        #expect(responses.first?["result"].string == "pong")
        #expect(answer[1]["id"].string == "two")
        #expect(answer[1]["error"]["code"].int == -32601)
        #expect(answer[2]["id"].int == 3)
        #expect(answer[2]["result"]["count"].int == 1, "a request of a batch sees the earlier ones")
        #expect(answer[3]["id"].isNull)
        #expect(answer[3]["error"]["code"].int == -32600)
        #expect(answer[4]["id"].int == 4)
        #expect(answer[4]["error"]["code"].int == -32602)
        try server.stop()
    }

    @Test func aBatchOfOnlyNotificationsIsNotAnswered() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        try client.sendLine(#"[{"jsonrpc":"2.0","method":"ping"},{"jsonrpc":"2.0","method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"x"}}]}}]"#)
        let next = try client.request(#"{"jsonrpc":"2.0","id":9,"method":"fetch","params":{"entity":"Tag","resultType":"count"}}"#)
        #expect(next["id"].int == 9, "\(next)")
        #expect(next["result"]["count"].int == 1)
        try server.stop()
    }

    @Test func anEmptyBatchIsAnInvalidRequest() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let answer = try client.request("[]")
        #expect(answer.array == nil, "one response, not an array: \(answer)")
        #expect(answer["id"].isNull)
        #expect(answer["error"]["code"].int == -32600)
        #expect(try client.exchange(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#) == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#)
        try server.stop()
    }

    @Test func aFailedSaveInABatchDoesNotUndoAnEarlierOne() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let answer = try client.request("""
            [{"jsonrpc":"2.0","id":1,"method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"kept"}}]}},\
            {"jsonrpc":"2.0","id":2,"method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{}}]}}]
            """)
        #expect(answer[0]["result"]["ids"]["t"].string?.hasPrefix("graph://") == true, "\(answer)")
        #expect(answer[1]["error"]["code"].int == -32002)
        let tags = try client.result("fetch", ["entity": "Tag"])
        #expect(tags["objects"].array?.map { $0["values"]["label"].string } == ["kept"])
        try server.stop()
    }

    @Test func blankLinesAreIgnoredAndACarriageReturnBeforeTheNewlineIsAllowed() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        try client.send("\n\r\n   \n" + #"{"jsonrpc":"2.0","id":1,"method":"ping"}"# + "\r\n")
        #expect(try client.readLine() == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#)
        try client.send(#"{"jsonrpc":"2.0","id":2,"#)
        try client.send(#""method":"ping"}"# + "\n")
        #expect(try client.readLine() == #"{"jsonrpc":"2.0","id":2,"result":"pong"}"#, "a line sent in two writes")
        #expect(try client.staysSilent(for: 0.2))
        try server.stop()
    }

    @Test(arguments: ["1", "-7", "1.5", "1e3", "12345678901234567890", #""abc""#, #""""#, "null"])
    func theIDComesBackAsItWasSent(id: String) throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        #expect(try client.exchange(#"{"jsonrpc":"2.0","id":\#(id),"method":"ping"}"#) == #"{"jsonrpc":"2.0","id":\#(id),"result":"pong"}"#)
        try server.stop()
    }

    @Test func membersInAnyOrderAndWhitespaceAroundAreAccepted() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        #expect(try client.exchange(#"{"method":"ping","id":7,"jsonrpc":"2.0"}"#) == #"{"jsonrpc":"2.0","id":7,"result":"pong"}"#)
        #expect(try client.exchange(" \t{ \"jsonrpc\" : \"2.0\" , \"id\" : 8 , \"method\" : \"ping\" }  ") == #"{"jsonrpc":"2.0","id":8,"result":"pong"}"#)
        try server.stop()
    }

    @Test func anHTTPLikeLineAfterTheFirstIsOnlyAParseError() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        #expect(try client.exchange(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#) == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#)
        #expect(try client.request("GET / HTTP/1.1")["error"]["code"].int == -32700)
        #expect(try client.exchange(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#) == #"{"jsonrpc":"2.0","id":2,"result":"pong"}"#)
        try server.stop()
    }

    @Test func a100RequestsSentInOneWriteAreAnsweredInOrder() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        var lines = ""
        for id in 1...100 {
            switch id % 4 {
            case 1: lines += #"{"jsonrpc":"2.0","id":\#(id),"method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"tag \#(id)"}}]}}"#
            case 2: lines += #"{"jsonrpc":"2.0","id":\#(id),"method":"fetch","params":{"entity":"Tag","resultType":"count"}}"#
            case 3: lines += #"{"jsonrpc":"2.0","id":"s\#(id)","method":"ping"}"#
            default: lines += #"{"jsonrpc":"2.0","id":\#(id),"method":"get","params":{"ids":[]}}"#
            }
            lines += "\n"
        }
        try client.send(lines)
        for id in 1...100 {
            let response = try JSON(parsing: client.readLine())
            switch id % 4 {
            case 1: #expect(response["id"].int == id && response["result"]["ids"]["t"].string != nil, "\(response)")
            case 2: #expect(response["id"].int == id && response["result"]["count"].int == (id + 2) / 4, "each request sees the earlier ones: \(response)")
            case 3: #expect(response["id"].string == "s\(id)" && response["result"].string == "pong", "\(response)")
            default: #expect(response["id"].int == id && response["result"]["objects"].count == 0, "\(response)")
            }
        }
        #expect(try client.staysSilent(for: 0.2))
        try server.stop()
    }

    @Test func aLineOfExactlyTheLimitIsServedAndALongerOneIsTooLargeAndCloses() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-line-bytes", "1024"])
        let client = try server.connect()
        let ping = #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        let exactly = String(ping.dropLast()) + String(repeating: " ", count: 1024 - ping.utf8.count) + "}"
        #expect(exactly.utf8.count == 1024)
        #expect(try client.exchange(exactly) == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#)
        #expect(try client.exchange(exactly + "\r") == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#, "the \\r is not counted")

        let other = try server.connect()
        let tooLong = String(ping.dropLast()) + String(repeating: " ", count: 1025 - ping.utf8.count) + "}"
        let answer = try client.request(tooLong)
        #expect(answer["id"].isNull)
        #expect(answer["error"]["code"].int == -32005)
        #expect(answer["error"]["data"] == JSON(["limit": 1024, "what": "line"]))
        #expect(try client.bytesUntilClosed() == [], "closed after the answer")
        #expect(try other.exchange(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#) == #"{"jsonrpc":"2.0","id":2,"result":"pong"}"#)
        try server.stop()
    }

    @Test func theDefaultLimitIs16MiB() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let ping = #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        var line = Array(ping.utf8.dropLast()) + [UInt8](repeating: UInt8(ascii: " "), count: 16_777_216 - ping.utf8.count) + [UInt8(ascii: "}")]
        #expect(line.count == 16_777_216)
        try client.send(line + [10])
        #expect(try client.readLine() == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#)
        line.insert(UInt8(ascii: " "), at: 1)
        try? client.send(line + [10])   // the server may close before the last bytes are sent
        let answer = try JSON(parsing: client.readLine())
        #expect(answer["error"]["code"].int == -32005)
        #expect(answer["error"]["data"] == JSON(["limit": 16_777_216, "what": "line"]))
        try server.stop()
    }

    @Test func aLineGrowingPastTheLimitIsRefusedBeforeItsNewlineArrives() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-line-bytes", "1024"])
        let client = try server.connect()
        // The server may close before every byte is sent.
        try? client.send(#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":""# + String(repeating: "a", count: 100_000))
        let answer = try JSON(parsing: client.readLine(timeout: 5))
        #expect(answer["error"]["code"].int == -32005)
        #expect(answer["error"]["data"]["limit"].int == 1024)
        _ = try client.bytesUntilClosed()
        try server.stop()
    }

    @Test(arguments: ["GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", "POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", "Host: x\r\n", "OPTIONS * HTTP/1.1\r\n"])
    func aConnectionThatSpeaksHTTPIsClosedWithoutAnAnswer(request: String) throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        try client.send(request)
        #expect(try client.bytesUntilClosed() == [])
        let other = try server.connect()
        #expect(try other.exchange(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#) == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#)
        try server.stop()
    }

    @Test func twoHundredFiftySixConnectionsAtOnceAreAllAnswered() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let connections = 256
        let results = Tally()
        let ready = DispatchGroup(), done = DispatchGroup()
        let gate = DispatchSemaphore(value: 0)
        let port = server.port
        for index in 0..<connections {
            ready.enter()
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                var client: LineClient?
                do {
                    client = try LineClient(port: port, timeout: 20)
                } catch {
                    results.fail("connection \(index): \(error)")
                }
                ready.leave()
                gate.wait()
                guard let client else { return }
                do {
                    try client.send("""
                        {"jsonrpc":"2.0","id":1,"method":"hello","params":{"client":"c\(index)"}}
                        {"jsonrpc":"2.0","id":2,"method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"c\(index)"}}]}}
                        {"jsonrpc":"2.0","id":3,"method":"ping"}

                        """)
                    let hello = try JSON(parsing: client.readLine())
                    let save = try JSON(parsing: client.readLine())
                    let ping = try client.readLine()
                    guard hello["result"]["protocol"].int == 1, ping == #"{"jsonrpc":"2.0","id":3,"result":"pong"}"#,
                          let id = save["result"]["ids"]["t"].string else {
                        return results.fail("connection \(index): \(hello) \(save) \(ping)")
                    }
                    let get = try client.result("get", ["ids": [id]])
                    guard get["objects"][0]["values"]["label"].string == "c\(index)" else {
                        return results.fail("connection \(index): get \(get)")
                    }
                    results.add(id)
                } catch {
                    results.fail("connection \(index): \(error)")
                }
            }
            thread.stackSize = 1 << 18
            thread.start()
        }
        #expect(ready.wait(timeout: .now() + 20) == .success, "not every connection was made")
        for _ in 0..<connections { gate.signal() }
        #expect(done.wait(timeout: .now() + 30) == .success, "not every connection was answered")
        let (ids, failures) = results.snapshot()
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(3))")
        #expect(ids.count == connections)
        #expect(Set(ids).count == connections, "every save got its own object")
        let client = try server.connect()
        #expect(try client.result("fetch", ["entity": "Tag", "resultType": "count"])["count"].int == connections)
        try server.stop()
        #expect(try StoreFileContents(server.storeURL).count("Tag") == connections)
    }

    @Test func aClientStalledInTheMiddleOfALineDoesNotHoldUpOthers() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let stalled = try server.connect()
        try stalled.send(#"{"jsonrpc":"2.0","id":1,"meth"#)
        let other = try server.connect()
        let started = Date()
        #expect(try other.exchange(#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#) == #"{"jsonrpc":"2.0","id":2,"result":"pong"}"#)
        let saved = try other.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "meanwhile"]]]])
        #expect(saved["ids"]["t"].string != nil)
        #expect(Date().timeIntervalSince(started) < 2)
        // The stalled line is still there, and is answered once it ends.
        try stalled.send(#"od":"fetch","params":{"entity":"Tag","resultType":"count"}}"# + "\n")
        #expect(try stalled.readLine() == #"{"jsonrpc":"2.0","id":1,"result":{"count":1}}"#)
        try server.stop()
    }

    @Test func aClientThatNeverReadsItsAnswersDoesNotHoldUpOthers() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let greedy = try server.connect()
        // Requests whose answers (the model, about 2 KB each) pile up unread: far more than the
        // socket buffers hold.
        var requests: [UInt8] = []
        for id in 1...20_000 { requests += Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"model"}"#.utf8) + [10] }
        var sent = 0
        let deadline = Date().addingTimeInterval(2)
        while sent < requests.count && Date() < deadline {
            let count = greedy.sendWithoutWaiting(Array(requests[sent...]))
            sent += count
            if count == 0 { usleep(10_000) }
        }
        let other = try server.connect()
        let started = Date()
        #expect(try other.exchange(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#) == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#)
        let saved = try other.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "meanwhile"]]]])
        #expect(saved["ids"]["t"].string != nil)
        #expect(try other.result("fetch", ["entity": "Tag", "resultType": "count"])["count"].int == 1)
        #expect(Date().timeIntervalSince(started) < 2, "the other client waited \(Date().timeIntervalSince(started)) s")
        greedy.close()
        #expect(try server.stop() == 0)
    }
}

/// Results gathered from many threads.
final class Tally: @unchecked Sendable {
    // Safe: every access holds the lock.
    private let lock = NSLock()
    private var values: [String] = []
    private var failures: [String] = []

    func add(_ value: String) { lock.withLock { values.append(value) } }
    func fail(_ failure: String) { lock.withLock { failures.append(failure) } }
    func snapshot() -> (values: [String], failures: [String]) { lock.withLock { (values, failures) } }
}
