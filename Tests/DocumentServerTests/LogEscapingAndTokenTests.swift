import Foundation
import ServerTestSupport
import Testing

/// Client text in the server's log, and tokens that are not really tokens.
@Suite struct LogEscapingAndTokenTests {
    @Test func clientTextReachesTheLogEscapedSoItCannotForgeALineOrSendTerminalEscapes() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--log-level", "debug"])
        let client = try server.connect()
        let forged = "evil\n2026-01-01T00:00:00+0000 critical docserver : forged line\u{1B}[31mred\u{7}\u{2028}"
        _ = try client.result("hello", ["client": forged])
        _ = try client.call("no\nsuch\u{1B}method")
        _ = try client.call("fetch", ["entity": "Ta\ng\u{1B}"])
        _ = try client.call("ping")  // so that every line before is logged
        try server.stop()
        let log = server.log
        #expect(!log.contains("\u{1B}"), "no ESC byte in the log")
        #expect(!log.contains("\u{7}"))
        #expect(!log.contains("\u{2028}"))
        #expect(!log.split(separator: "\n").contains { $0.hasPrefix("2026-01-01T00:00:00+0000 critical") }, "no forged line")
        #expect(log.contains(#"client=evil\n2026-01-01T00:00:00+0000 critical docserver : forged line\u{1B}[31mred\u{7}\u{2028}"#), "\(log)")
        #expect(log.contains(#"no\nsuch\u{1B}method"#))
        #expect(log.contains(#"Ta\ng\u{1B}"#))
    }

    @Test func longClientTextIsCappedInTheLog() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        _ = try client.result("hello", ["client": String(repeating: "n", count: 10_000)])
        try server.stop()
        let line = server.log.split(separator: "\n").first { $0.contains("client=") } ?? ""
        #expect(line.contains(String(repeating: "n", count: 128) + "…"))
        #expect(!line.contains(String(repeating: "n", count: 129)))
    }

    @Test(arguments: [" ", "   \t "])
    func aWhiteSpaceOnlyTokenIsRefusedAtStartUp(token: String) throws {
        let directory = try TemporaryDirectory()
        let result = try runDocServer(["serve", "--port", "0", "--store", directory.file("store.json").path, "--auth-token", token])
        #expect(result.status == 2, "\(result.errors)")
        #expect(result.errors.contains("only white space"), "\(result.errors)")
        let fromEnvironment = try runDocServer(["serve", "--port", "0", "--store", directory.file("store.json").path],
                                               environment: ["DOCSERVER_AUTH_TOKEN": token])
        #expect(fromEnvironment.status == 2, "\(fromEnvironment.errors)")
    }

    @Test(arguments: ["42", "true", "[\"s3cret\"]", "{\"token\":\"s3cret\"}"])
    func aTokenThatIsNotAStringIsAWrongTokenAndClosesTheConnection(token: String) throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--auth-token", "s3cret"])
        let client = try server.connect()
        let answer = try client.request(#"{"jsonrpc":"2.0","id":1,"method":"hello","params":{"token":\#(token)}}"#)
        #expect(answer["error"]["code"].int == -32004, "\(answer)")
        #expect(answer["error"]["data"]["reason"].string == "wrong token")
        #expect(try client.bytesUntilClosed() == [])
        try server.stop()
    }
}
