import Foundation
import ServerTestSupport
import Testing

/// A `hello` sent as a notification, and methods that take no parameters
/// (`docs/PROTOCOL.md`, Transport and Methods), against the real server.
@Suite struct NotificationAndParamsTests {
    @Test func aHelloSentAsANotificationDoesNotAuthenticate() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--auth-token", "secret"])
        let client = try server.connect()
        try client.sendLine(#"{"jsonrpc":"2.0","method":"hello","params":{"token":"secret","client":"ann"}}"#)
        let answer = try client.call("ping")
        #expect(answer["error"]["code"].int == -32004, "the notification authenticated: \(answer)")
        // Nor does a wrong token sent as a notification close the connection; a real hello still works.
        try client.sendLine(#"{"jsonrpc":"2.0","method":"hello","params":{"token":"wrong"}}"#)
        _ = try client.result("hello", ["token": "secret"])
        #expect(try client.result("ping").string == "pong")
        try server.stop()
    }

    @Test func aHelloSentAsANotificationDoesNotNameTheAuthorOfLaterSaves() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        try client.sendLine(#"{"jsonrpc":"2.0","method":"hello","params":{"client":"ann"}}"#)
        let seq = try client.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "x"]]]])["seq"].int ?? 0
        let changes = try client.result("changes", ["since": seq - 1])
        #expect(changes["changes"][0]["author"].isNull, "\(changes)")
        try server.stop()
    }

    @Test func aMethodWithoutParametersSaysSoWhenGivenOne() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        for method in ["ping", "model"] {
            let answer = try client.call(method, ["x": 1])
            #expect(answer["error"]["code"].int == -32602, "\(answer)")
            #expect(answer["error"]["data"]["path"].string == "params.x", "\(answer)")
            #expect(answer["error"]["data"]["reason"].string == "unknown parameter: \(method) takes no parameters", "\(answer)")
            #expect(answer["error"]["message"].string?.contains("known: )") == false, "\(answer)")
        }
        #expect(try client.result("ping", [:]).string == "pong", "an empty params object is no parameter")
        try server.stop()
    }
}
