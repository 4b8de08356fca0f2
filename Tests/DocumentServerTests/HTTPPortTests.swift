import Foundation
import ServerTestSupport
import Testing

/// The HTTP port (`--http-port`): health, readiness, metrics, and what it refuses; against the
/// real `docserver serve` over real sockets.
@Suite struct HTTPPortTests {
    /// A server with `--http-port` on a free port, and that port.
    static func start(in directory: TemporaryDirectory, arguments: [String] = []) throws -> (ServerProcess, Int) {
        let httpPort = try unusedPort()
        let server = try ServerProcess(in: directory, arguments: ["--http-port", "\(httpPort)"] + arguments)
        return (server, httpPort)
    }

    @Test func healthzAndReadyzAnswer200OnceTheStoreIsOpen() throws {
        let directory = try TemporaryDirectory()
        let (server, port) = try Self.start(in: directory)
        let health = try http("/healthz", port: port)
        #expect(health.status == 200)
        #expect(health.body == "ok\n")
        let ready = try http("/readyz", port: port)
        #expect(ready.status == 200, "\(ready.body)")
        #expect(ready.body == "ready\n")
        #expect(ready.headers["cache-control"] == "no-store")
        #expect(server.log.contains("http listening"))
        try server.stop()
    }

    @Test func anUnknownPathIs404AndAnotherMethodIs405WithAllow() throws {
        let directory = try TemporaryDirectory()
        let (server, port) = try Self.start(in: directory)
        let missing = try http("/nothing-here", port: port)
        #expect(missing.status == 404)
        #expect(missing.body.contains("/metrics"))
        let posted = try http("/healthz", port: port, method: "POST", body: "{}")
        #expect(posted.status == 405)
        #expect(posted.headers["allow"] == "GET, HEAD")
        let head = try http("/healthz", port: port, method: "HEAD")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(try http("/healthz?verbose=1", port: port).status == 200)  // a query does not change the route
        try server.stop()
    }

    @Test func aBodyPastTheLimitIs413AndClosesTheConnection() throws {
        let directory = try TemporaryDirectory()
        let (server, port) = try Self.start(in: directory)
        let big = String(repeating: "x", count: 70_000)
        let replies = try httpExchange(port: port, "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: \(big.utf8.count)\r\n\r\n\(big)")
        #expect(replies.map(\.status) == [413])
        #expect(replies.first?.headers["connection"] == "close")
        #expect(try http("/healthz", port: port).status == 200)  // the port goes on
        try server.stop()
    }

    @Test func aKeptAliveConnectionServesSeveralRequestsInOrder() throws {
        let directory = try TemporaryDirectory()
        let (server, port) = try Self.start(in: directory)
        let replies = try httpExchange(port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                                                  + "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"
                                                  + "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(replies.map(\.status) == [200, 200, 404])
        #expect(replies.map(\.body).prefix(2) == ["ok\n", "ready\n"])
        try server.stop()
    }

    @Test func anIdleHttpConnectionIsClosedAfterTheIdleTimeout() throws {
        let directory = try TemporaryDirectory()
        let (server, port) = try Self.start(in: directory, arguments: ["--idle-timeout", "1"])
        let client = try LineClient(port: UInt16(port), timeout: 10)
        try client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")  // kept alive, then silent
        let started = Date()
        let replies = try HTTPReply.parseAll(client.bytesUntilClosed(timeout: 10))
        let waited = Date().timeIntervalSince(started)
        #expect(replies.map(\.status) == [200])
        #expect(waited >= 0.9 && waited < 5, "closed after \(waited) s")
        try server.stop()
    }

    @Test func withoutHttpPortNothingListensBesideTheLinePort() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        #expect(!server.log.contains("http listening"))
        try server.stop()
    }

    @Test func anHttpPortInUseStopsTheServerWithExit2() throws {
        let directory = try TemporaryDirectory()
        let (first, port) = try Self.start(in: directory)
        let result = try runDocServer(["serve", "--port", "0", "--store", directory.file("other.json").path, "--http-port", "\(port)"])
        #expect(result.status == 2)
        #expect(result.errors.contains("cannot listen for HTTP"), "\(result.errors)")
        try first.stop()
    }

    @Test func pingWithHttpChecksReadyzAndFailsWhenNothingAnswers() throws {
        let directory = try TemporaryDirectory()
        let (server, port) = try Self.start(in: directory)
        let ok = try runDocServer(["ping", "--http", "/readyz", "--http-port", "\(port)"])
        #expect(ok.status == 0, "\(ok.errors)")
        #expect(ok.output.contains("ready"))
        let missing = try runDocServer(["ping", "--http", "/nothing", "--http-port", "\(port)"])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("404"))
        try server.stop()
        let stopped = try runDocServer(["ping", "--http", "/healthz", "--http-port", "\(port)", "--timeout", "2"])
        #expect(stopped.status == 1)
    }
}
