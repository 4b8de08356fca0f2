import Foundation
import ServerTestSupport
import Testing

/// `--auth-token`: hello with the token first, or nothing.
@Suite struct AuthTests {
    static let token = "s3cret-Töken"

    @Test func withATokenEveryRequestBeforeHelloIsUnauthorizedAndNotificationsAreDropped() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--auth-token", Self.token])
        let client = try server.connect()
        for method in ["ping", "model", "fetch", "save"] {
            let response = try client.request(#"{"jsonrpc":"2.0","id":"\#(method)","method":"\#(method)","params":{"entity":"Tag"}}"#)
            #expect(response["id"].string == method)
            #expect(response["error"]["code"].int == -32004, "\(method): \(response)")
            #expect(response["error"]["data"]["reason"].string?.isEmpty == false)
        }
        try client.sendLine(#"{"jsonrpc":"2.0","method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"sneaky"}}]}}"#)
        let batch = try client.request(#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"ping"}]"#)
        #expect(batch.count == 1)
        #expect(batch[0]["error"]["code"].int == -32004)

        let hello = try client.result("hello", ["token": Self.token, "client": "AuthTests"])
        #expect(hello["protocol"].int == 1)
        #expect(try client.result("ping").string == "pong")
        #expect(try client.result("fetch", ["entity": "Tag", "resultType": "count"])["count"].int == 0, "the notification was dropped")
        try server.stop()
    }

    @Test func aWrongTokenIsUnauthorizedAndClosesTheConnection() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--auth-token", Self.token])
        for wrong in ["wrong", Self.token.uppercased(), Self.token + " ", ""] {
            let client = try server.connect()
            let response = try client.call("hello", ["token": wrong])
            #expect(response["error"]["code"].int == -32004, "token \(wrong.debugDescription): \(response)")
            #expect(try client.bytesUntilClosed() == [], "token \(wrong.debugDescription)")
        }
        let missing = try server.connect()
        #expect(try missing.call("hello")["error"]["code"].int == -32004, "hello without a token")
        let right = try server.connect()
        #expect(try right.result("hello", ["token": Self.token])["server"].string == "docserver")
        #expect(try right.result("ping").string == "pong")
        try server.stop()
    }

    @Test func theTokenMayComeFromTheEnvironment() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, environment: ["DOCSERVER_AUTH_TOKEN": "from-env"])
        let client = try server.connect()
        #expect(try client.call("ping")["error"]["code"].int == -32004)
        _ = try client.result("hello", ["token": "from-env"])
        #expect(try client.result("ping").string == "pong")
        try server.stop()
    }

    @Test func withoutATokenHelloIsOptionalAndATokenSentIsIgnored() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        #expect(try client.result("ping").string == "pong")
        #expect(try client.result("hello", ["token": "anything"])["protocol"].int == 1)
        #expect(try client.result("ping").string == "pong")
        try server.stop()
    }

    @Test func listeningOnANonLoopbackAddressWithoutATokenFailsAtStartUp() throws {
        let directory = try TemporaryDirectory()
        let result = try runDocServer(["serve", "--host", "0.0.0.0", "--port", "0", "--store", directory.file("store.json").path])
        #expect(result.status != 0)
        #expect(!result.output.contains("listening on"), "\(result.output)")
        #expect(result.errors.lowercased().contains("token"), "the message says why: \(result.errors)")
    }

    @Test func listeningOnANonLoopbackAddressWithATokenWorks() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--host", "0.0.0.0", "--auth-token", Self.token])
        #expect(server.host == "0.0.0.0")
        let client = try server.connect()
        #expect(try client.call("ping")["error"]["code"].int == -32004)
        _ = try client.result("hello", ["token": Self.token])
        #expect(try client.result("ping").string == "pong")
        try server.stop()
    }
}
