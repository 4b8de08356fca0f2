import DocumentServer
import Foundation
import ServerTestSupport
import Testing

// The users file needs the Users trait (Package.swift); scripts/test.sh builds with every trait.
#if Users
/// A user's first `hello` hashes its secret (PBKDF2, tenths of a second at the default
/// iterations). The hash runs on a thread pool, not on the event loop: with one event loop
/// (`--io-threads 1`), every other connection is answered while it runs; and a secret checked
/// once is remembered, so the user's next `hello` does not hash again.
@Suite struct HelloHashOffLoopTests {
    /// A users file (mode 0600) with `slow` (its secret hashed with `iterations`) and `fast`.
    private static func usersFile(in directory: TemporaryDirectory, iterations: Int) throws -> URL {
        let slow = SecretHash(hashing: "slow's secret", iterations: iterations)
        let fast = SecretHash(hashing: "fast's secret", iterations: SecretHash.minimumIterations)
        let text = #"{"users":[{"name":"slow","secret":"\#(slow)","roles":["reader"]},"#
            + #"{"name":"fast","secret":"\#(fast)","roles":["reader"]}]}"#
        let url = directory.file("users.json")
        try text.write(to: url, atomically: true, encoding: .utf8)
        guard chmod(url.path, 0o600) == 0 else { throw HarnessError("chmod of the users file failed") }
        return url
    }

    private static func seconds(since start: Date) -> Double { Date().timeIntervalSince(start) }

    @Test func anotherConnectionIsAnsweredWhileAFirstHelloHashesItsSecretAndTheNextHelloIsNotHashedAgain() throws {
        let directory = try TemporaryDirectory()
        // About 1 s in a release build, several in a debug one: far above a ping's time.
        let users = try Self.usersFile(in: directory, iterations: 1_500_000)
        let server = try ServerProcess(in: directory, arguments: ["--users", users.path, "--io-threads", "1"])
        let pinger = try server.connect(timeout: 60)
        #expect(try pinger.result("hello", ["user": "fast", "secret": "fast's secret"])["server"].string == "docserver")

        let first = try server.connect(timeout: 60)
        let started = Date()
        try first.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"hello","params":{"user":"slow","secret":"slow's secret"}}"#)
        usleep(50_000)  // the server has read the hello and is hashing
        let pingStarted = Date()
        #expect(try pinger.result("ping").string == "pong")
        let ping = Self.seconds(since: pingStarted)
        let hello = try first.readLine(timeout: 60)
        let firstHello = Self.seconds(since: started)
        #expect(hello.contains(#""result":{"server":"docserver""#), "\(hello)")
        // Before the hash left the event loop, the ping waited for it: about the hello's time.
        #expect(ping < firstHello / 4, "ping \(ping) s while the first hello took \(firstHello) s")

        let again = try server.connect(timeout: 60)
        let againStarted = Date()
        #expect(try again.result("hello", ["user": "slow", "secret": "slow's secret"])["server"].string == "docserver")
        let secondHello = Self.seconds(since: againStarted)
        #expect(secondHello < firstHello / 4, "the second hello took \(secondHello) s, the first \(firstHello) s")
        try server.stop()
    }

    @Test func aHelloInABatchIsCheckedOffTheEventLoopAndAWrongSecretIsStillRefused() throws {
        let directory = try TemporaryDirectory()
        let users = try Self.usersFile(in: directory, iterations: SecretHash.minimumIterations)
        let server = try ServerProcess(in: directory, arguments: ["--users", users.path])
        // In a batch the hello is checked the same way, and the request after it runs as that user.
        let batch = try server.connect()
        let answers = try batch.request(#"[{"jsonrpc":"2.0","id":1,"method":"hello","params":{"user":"slow","secret":"slow's secret"}},"#
            + #"{"jsonrpc":"2.0","id":2,"method":"ping"}]"#)
        #expect(answers[0]["result"]["server"].string == "docserver", "\(answers)")
        #expect(answers[1]["result"].string == "pong", "\(answers)")
        let client = try server.connect()
        let answer = try client.call("hello", ["user": "slow", "secret": "not slow's secret"])
        #expect(answer["error"]["code"].int == -32004, "\(answer)")
        #expect(try client.bytesUntilClosed() == [])
        try server.stop()
    }
}
#endif
