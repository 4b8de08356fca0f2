import Foundation
import ServerTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A small blocking client of the line protocol for the multi-server tests: it sends requests
/// and reads answer lines (notifications included) as `[String: Any]`, each wait bounded.
final class WireClient: @unchecked Sendable {
    // @unchecked: a client is used by one thread at a time.
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var nextID = 1

    init(port: UInt16) throws {
        let made = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard made >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(made, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            Glibc.close(made)
            throw HarnessError("connect to port \(port): errno \(errno)")
        }
        descriptor = made
    }

    deinit { Glibc.close(descriptor) }

    /// Calls `method` and returns the whole answer (skipping notifications that come first,
    /// which are kept for ``nextNotification(timeout:)``).
    func call(_ method: String, _ params: [String: Any] = [:], timeout: Double = 20) throws -> [String: Any] {
        let id = nextID
        nextID += 1
        let request: [String: Any] = ["jsonrpc": "2.0", "id": id, "method": method, "params": params]
        var bytes = Array(try JSONSerialization.data(withJSONObject: request))
        bytes.append(0x0A)
        try send(bytes)
        while true {
            let answer = try readMessage(timeout: timeout)
            if answer["id"] as? Int == id { return answer }
            notifications.append(answer)
        }
    }

    /// Sends a `fetch` with `stream: true` and returns its id; read its lines with ``readStream(id:timeout:)``.
    func sendStreamedFetch(_ params: [String: Any]) throws -> Int {
        let id = nextID
        nextID += 1
        var streamed = params
        streamed["stream"] = true
        var bytes = Array(try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": id, "method": "fetch", "params": streamed] as [String: Any]))
        bytes.append(0x0A)
        try send(bytes)
        return id
    }

    /// The lines of streamed answer `id`: the `part`s, then its last line (`result` or `error`);
    /// `longestLine`: the bytes of the longest line.
    func readStream(id: Int, timeout: Double = 60) throws -> (parts: [[String: Any]], last: [String: Any], longestLine: Int) {
        var parts: [[String: Any]] = []
        var longest = 0
        while true {
            let line = try readLine(timeout: timeout)
            longest = max(longest, line.count + 1)
            guard let message = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { throw HarnessError("not an object") }
            guard message["id"] as? Int == id else {
                notifications.append(message)
                continue
            }
            guard let part = message["part"] as? [String: Any] else { return (parts, message, longest) }
            parts.append(part)
        }
    }

    /// Calls `method` and returns its `result`; throws with the error when it failed.
    func result(_ method: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
        let answer = try call(method, params)
        guard let result = answer["result"] as? [String: Any] else { throw HarnessError("\(method) failed: \(answer)") }
        return result
    }

    /// Sends `line` as it is and returns the next line the server writes, as it is (for
    /// comparing answers byte for byte; no notification may come first).
    func exchange(_ line: String, timeout: Double = 20) throws -> String {
        try send(Array(line.utf8) + [0x0A])
        return String(decoding: try readLine(timeout: timeout), as: UTF8.self)
    }

    private func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw HarnessError("send failed: errno \(errno)") }
            sent += count
        }
    }

    /// Notifications read while waiting for answers, oldest first.
    private var notifications: [[String: Any]] = []

    /// The next notification's `params`.
    func nextNotification(timeout: Double = 20) throws -> [String: Any] {
        let message = notifications.isEmpty ? try readMessage(timeout: timeout) : notifications.removeFirst()
        guard let params = message["params"] as? [String: Any] else { throw HarnessError("not a notification: \(message)") }
        return params
    }

    private func readMessage(timeout: Double) throws -> [String: Any] {
        let line = try readLine(timeout: timeout)
        guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            throw HarnessError("not an object: \(String(decoding: line, as: UTF8.self))")
        }
        return object
    }

    private func readLine(timeout: Double) throws -> [UInt8] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw HarnessError("no answer within \(timeout) s") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(min(left, 1) * 1000)) >= 0 else { throw HarnessError("poll failed: errno \(errno)") }
            guard poller.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw HarnessError("the server closed the connection") }
            buffer += chunk[..<count]
        }
    }
}
