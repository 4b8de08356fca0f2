import Foundation
import ServerTestSupport
import Testing

/// The request time limit against the real `docserver` binary: a fetch that runs past it
/// fails with -32007 and frees the store thread, so other connections are answered.
@Suite struct RequestTimeLimitTests {
    /// Forty `.*` in a row over a title of 200 000 scalars: seconds of work for any engine.
    static let slowPredicate = "title MATCHES '" + String(repeating: ".*", count: 40) + "z'"

    @Test func aSlowFetchFailsWithTheTimeLimitCodeWhileOtherConnectionsAreAnswered() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--request-time-limit", "0.5"])
        let slow = try server.connect()
        let other = try server.connect()
        _ = try SampleData.insert(through: slow)
        let long = String(repeating: "a", count: 200_000)
        var insert: [[String: Any]] = []
        for index in 0..<10 { insert.append(["id": "long\(index)", "entity": "Song", "values": ["title": long, "plays": index]]) }
        _ = try slow.result("save", ["insert": insert])

        let started = Date()
        try slow.sendLine(#"{"jsonrpc":"2.0","id":"slow","method":"fetch","params":{"entity":"Song","predicate":"\#(Self.slowPredicate)"}}"#)
        // Meanwhile a second connection is answered, at the latest once the limit freed the store.
        #expect(try other.exchange(#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#) == #"{"jsonrpc":"2.0","id":"p","result":"pong"}"#)
        #expect(try other.result("fetch", ["entity": "Song", "predicate": "plays == 12", "resultType": "count"])["count"].int == 1)

        let answer = try JSON(parsing: slow.readLine())
        let elapsed = Date().timeIntervalSince(started)
        #expect(answer["id"].string == "slow")
        #expect(answer["error"]["code"].int == -32007)
        #expect(answer["error"]["message"].string?.contains("time limit") == true)
        #expect(answer["error"]["data"]["entity"].string == "Song")
        #expect(elapsed < 5, "answered after \(elapsed) s")
        // The connection that hit the limit goes on working.
        #expect(try slow.result("fetch", ["entity": "Song", "resultType": "count"])["count"].int == 16)
        #expect(try server.stop() == 0)
    }

    @Test func theLimitCanBeTurnedOffAndIsRefusedWhenNegative() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--request-time-limit", "0"])
        let client = try server.connect()
        #expect(try client.exchange(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#) == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#)
        #expect(try server.stop() == 0)
        #expect(throws: (any Error).self) { try ServerProcess(in: directory, arguments: ["--request-time-limit", "-1"]) }
    }
}
