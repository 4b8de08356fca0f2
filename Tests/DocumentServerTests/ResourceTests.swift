import Foundation
import ServerTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What one client, or many, can hold of the server: time, connections, buffered bytes,
/// file descriptors (`docs/PROTOCOL.md`, Limits).
@Suite struct ResourceTests {
    static let ping = #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
    static let pong = #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#

    @Test func aConnectionThatSendsNothingOrHalfALineForTheIdleTimeoutIsClosed() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--idle-timeout", "1"])
        let silent = try server.connect()
        let half = try server.connect()
        try half.send(#"{"jsonrpc":"2.0","id":1,"#)
        let started = Date()
        #expect(try silent.bytesUntilClosed(timeout: 5) == [])
        #expect(try half.bytesUntilClosed(timeout: 5) == [])
        #expect(Date().timeIntervalSince(started) < 4)
        // A client that keeps talking, slower than the timeout in total but faster than it
        // between lines, stays connected.
        let busy = try server.connect()
        for _ in 0..<5 {
            #expect(try busy.exchange(Self.ping) == Self.pong)
            Thread.sleep(forTimeInterval: 0.5)
        }
        #expect(try busy.exchange(Self.ping) == Self.pong)
        #expect(server.log.contains("closing an idle connection"))
        try server.stop()
    }

    @Test func aClientWaitingForALongAnswerIsNotIdle() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--idle-timeout", "1"])
        let client = try server.connect(timeout: 60)
        let tags = (0..<3000).map { ["id": "t\($0)", "entity": "Tag", "values": ["label": "label \($0)"]] as [String: Any] }
        _ = try client.result("save", ["insert": tags])
        // 250 full scans of 3000 objects: on this kind of machine (debug build) longer than the timeout.
        let fetch = { (id: Int) in #"{"jsonrpc":"2.0","id":\#(id),"method":"fetch","params":{"entity":"Tag","predicate":"label CONTAINS[c] 'zzz'","resultType":"count"}}"# }
        let started = Date()
        let answers = try JSON(parsing: client.readLine(afterSending: "[" + (1...250).map(fetch).joined(separator: ",") + "]"))
        #expect(answers.count == 250)
        #expect(answers[249]["result"]["count"].int == 0)
        print("a batch of 250 fetches took \(Date().timeIntervalSince(started)) s with an idle timeout of 1 s")
        #expect(try client.exchange(Self.ping) == Self.pong)
        try server.stop()
    }

    @Test func pastTheConnectionLimitANewConnectionGetsServerBusyAndIsClosedAndTheRefusalIsLoggedOnce() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-connections", "2"])
        let first = try server.connect()
        let second = try server.connect()
        #expect(try first.exchange(Self.ping) == Self.pong)
        #expect(try second.exchange(Self.ping) == Self.pong)
        for _ in 0..<3 {
            let refused = try server.connect()
            let answer = try JSON(parsing: refused.readLine(timeout: 5))
            #expect(answer["id"].isNull)
            #expect(answer["error"]["code"].int == -32008)
            #expect(answer["error"]["data"] == JSON(["limit": 2]))
            #expect(try refused.bytesUntilClosed() == [])
        }
        first.close()
        // The server notices the close on its own time.
        var again: LineClient?
        for _ in 0..<50 {
            let candidate = try server.connect()
            if let line = try? candidate.exchange(Self.ping), line == Self.pong {
                again = candidate
                break
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(again != nil, "a connection is accepted again once one closed")
        #expect(try second.exchange(Self.ping) == Self.pong)
        let log = server.log
        #expect(log.components(separatedBy: "connection limit reached").count - 1 == 1, "logged once per burst: \(log)")
        try server.stop()
    }

    @Test func theConnectionThatWouldTakeTheBufferedIncompleteLinesPastTheLimitIsRefusedAndClosed() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-buffered-bytes", "4096"])
        let first = try server.connect()
        let second = try server.connect()
        let start = #"{"jsonrpc":"2.0","id":1,"method":"ping""#
        try first.send(start + String(repeating: " ", count: 3000))
        Thread.sleep(forTimeInterval: 0.3)
        try? second.send(start + String(repeating: " ", count: 2000))
        let answer = try JSON(parsing: second.readLine(timeout: 5))
        #expect(answer["error"]["code"].int == -32005)
        #expect(answer["error"]["data"] == JSON(["limit": 4096, "what": "bufferedBytes"]))
        _ = try second.bytesUntilClosed()
        // The first line completes and is answered; its bytes are no longer held.
        try first.send("}\n")
        #expect(try first.readLine() == Self.pong)
        let third = try server.connect()
        try third.send(start + String(repeating: " ", count: 3500) + "}\n")
        #expect(try third.readLine() == Self.pong)
        try server.stop()
    }

    @Test func outOfFileDescriptorsTheServerRefusesWithServerBusyDoesNotSpinAndServesAgainOnceSomeAreFree() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let pid = server.process.processIdentifier
        let limited = try runProgram(URL(fileURLWithPath: "/usr/bin/prlimit"), ["--pid", "\(pid)", "--nofile=64:64"], environment: [:], timeout: 10)
        try #require(limited.status == 0, "prlimit: \(limited.errors)")
        var clients: [LineClient] = []
        // Open connections until the server refuses one (it has no descriptor left for it).
        var refusal: JSON?
        for _ in 0..<80 {
            let client = try server.connect()
            try client.sendLine(Self.ping)
            let line = try client.readLine(timeout: 5)
            guard line == Self.pong else {
                refusal = try JSON(parsing: line)
                break
            }
            clients.append(client)
        }
        let refused = try #require(refusal, "the server ran out of descriptors")
        #expect(refused["error"]["code"].int == -32008, "\(refused)")
        #expect(refused["error"]["data"]["reason"].string == "the server is out of file descriptors")
        // More connections wait while the process has no descriptor: each is refused, none makes it spin.
        for _ in 0..<3 {
            let client = try server.connect()
            #expect(try JSON(parsing: client.readLine(timeout: 5))["error"]["code"].int == -32008)
        }
        let waiting = try server.connect()
        let before = try Self.cpuSeconds(of: pid)
        Thread.sleep(forTimeInterval: 2)
        let spent = try Self.cpuSeconds(of: pid) - before
        #expect(spent < 0.2, "CPU time in 2 s while out of descriptors: \(spent) s")
        _ = waiting
        for client in clients.prefix(10) { client.close() }
        var again: LineClient?
        for _ in 0..<50 {
            let candidate = try server.connect()
            if let line = try? candidate.exchange(Self.ping), line == Self.pong {
                again = candidate
                break
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(again != nil, "served again once descriptors are free")
        let log = server.log
        #expect(log.components(separatedBy: "cannot accept connections").count - 1 == 1, "logged once: \(log.suffix(3000))")
        #expect(log.contains("accepting connections again"))
        try server.stop()
    }

    /// User plus system CPU time of a process so far, from /proc.
    static func cpuSeconds(of pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name (in parentheses, which may hold spaces).
        guard let close = stat.lastIndex(of: ")") else { throw HarnessError("unreadable /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw HarnessError("unreadable /proc/\(pid)/stat: \(stat)")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
