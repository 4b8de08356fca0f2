import Foundation
import ServerTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A small blocking TCP client of the line protocol, with Glibc sockets: it sends raw bytes or
/// lines and reads answer lines, each wait bounded by a timeout. Not shared between threads.
final class LineClient {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var nextID = 1
    private var closed = false
    /// The longest wait for one answer line, in seconds.
    let timeout: Double

    init(port: UInt16, host: String = "127.0.0.1", timeout: Double = 10) throws {
        self.timeout = timeout
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            Glibc.close(socketDescriptor)
            throw HarnessError("not an IPv4 address: \(host)")
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(socketDescriptor)
            throw HarnessError("connect to \(host):\(port): \(String(cString: strerror(error)))")
        }
        var one: Int32 = 1
        setsockopt(socketDescriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        descriptor = socketDescriptor
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(descriptor)
    }

    /// Closes the connection with a reset (SO_LINGER 0), dropping whatever was not sent yet.
    func reset() {
        guard !closed else { return }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close()
    }

    /// Sends `bytes` as they are.
    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw HarnessError("send: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// Sends as many of `bytes` as the socket takes without waiting; returns how many.
    func sendWithoutWaiting(_ bytes: [UInt8]) -> Int {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            sent += count
        }
        return sent
    }

    /// Sends `text` as it is (no newline added).
    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends `text` followed by `\n`.
    func sendLine(_ text: String) throws { try send(Array(text.utf8) + [UInt8(ascii: "\n")]) }

    /// Reads one line (without its `\n`); throws on timeout or when the server closes first.
    func readLine(timeout: Double? = nil) throws -> String {
        let deadline = Date().addingTimeInterval(timeout ?? self.timeout)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            switch try receive(until: deadline) {
            case .data: continue
            case .closed:
                throw HarnessError("the server closed the connection" + (buffer.isEmpty ? "" : " after \(String(decoding: buffer, as: UTF8.self).debugDescription)"))
            case .timedOut:
                throw HarnessError("no answer line within \(timeout ?? self.timeout) s" + (buffer.isEmpty ? "" : "; partial: \(String(decoding: buffer.prefix(300), as: UTF8.self).debugDescription)"))
            }
        }
    }

    /// Sends `line` and reads the answer line.
    func exchange(_ line: String) throws -> String {
        try sendLine(line)
        return try readLine()
    }

    /// Sends `line` and parses the answer line.
    func request(_ line: String) throws -> JSON {
        try JSON(parsing: exchange(line))
    }

    /// Calls `method` with `params` (a fresh numeric `id`); returns the whole response, after
    /// checking that it carries that `id`.
    @discardableResult
    func call(_ method: String, _ params: [String: Any]? = nil) throws -> JSON {
        let id = nextID
        nextID += 1
        var message: [String: Any] = ["jsonrpc": "2.0", "id": id, "method": method]
        if let params { message["params"] = params }
        let response = try request(JSON.text(message))
        guard response["id"].int == id else { throw HarnessError("response to request \(id) carries id \(response["id"]): \(response)") }
        return response
    }

    /// Calls `method` and returns its `result`; throws when the answer is an error.
    func result(_ method: String, _ params: [String: Any]? = nil) throws -> JSON {
        let response = try call(method, params)
        guard response["error"].isMissing, !response["result"].isMissing else {
            throw HarnessError("\(method) failed: \(response)")
        }
        return response["result"]
    }

    /// Waits until the server closes the connection and returns the bytes it sent before;
    /// throws when the connection is still open after `timeout` seconds.
    func bytesUntilClosed(timeout: Double = 5) throws -> [UInt8] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            switch try receive(until: deadline) {
            case .data: continue
            case .closed:
                let bytes = buffer
                buffer = []
                return bytes
            case .timedOut:
                throw HarnessError("the connection is still open after \(timeout) s; received \(String(decoding: buffer.prefix(300), as: UTF8.self).debugDescription)")
            }
        }
    }

    /// Whether nothing arrives (and the connection stays open) for `seconds`.
    func staysSilent(for seconds: Double) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        if !buffer.isEmpty { return false }
        switch try receive(until: deadline) {
        case .timedOut: return true
        case .data, .closed: return false
        }
    }

    private enum Received { case data, closed, timedOut }

    /// Waits for bytes until `deadline`, appending them to the buffer.
    private func receive(until deadline: Date) throws -> Received {
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return .timedOut }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { throw HarnessError("poll: \(String(cString: strerror(errno)))") }
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && errno == ECONNRESET { return .closed }
            if count < 0 { throw HarnessError("recv: \(String(cString: strerror(errno)))") }
            if count == 0 { return .closed }
            buffer.append(contentsOf: chunk[..<count])
            return .data
        }
    }
}

extension ServerProcess {
    /// A new connection to the server.
    func connect(timeout: Double = 10) throws -> LineClient {
        try LineClient(port: port, timeout: timeout)
    }
}
