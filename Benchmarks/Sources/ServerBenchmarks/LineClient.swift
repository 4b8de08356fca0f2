import BenchmarkSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking one-request-at-a-time client for the set-up steps (reading the IDs and
/// versions a run needs); the measured load goes through `LoadGenerator`.
final class LineClient {
    private let socket: Int32
    private var received: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var nextID = 1

    init(host: String, port: Int) throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
            throw BenchmarkError("cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        socket = Glibc.socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard socket >= 0 else { throw BenchmarkError("socket(): errno \(errno)") }
        guard connect(socket, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let code = errno
            Glibc.close(socket)
            throw BenchmarkError("cannot connect to \(host):\(port): errno \(code)")
        }
    }

    deinit { Glibc.close(socket) }

    /// Sends one request and returns its `result`; an `error` answer throws.
    func call(_ method: String, params: String) throws -> Any {
        let line = try send(method, params: params)
        let answer = try JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed]) as? [String: Any]
        if let result = answer?["result"] { return result }
        throw BenchmarkError("\(method) failed: \(String(decoding: line.prefix(500), as: UTF8.self))")
    }

    /// Sends one request and checks that its answer is a result, without parsing it.
    func callDiscardingResult(_ method: String, params: String) throws {
        let id = nextID
        let line = try send(method, params: params)
        guard line.starts(with: Array(#"{"jsonrpc":"2.0","id":\#(id),"result":"#.utf8)) else {
            throw BenchmarkError("\(method) failed: \(String(decoding: line.prefix(500), as: UTF8.self))")
        }
    }

    /// Sends a `fetch` whose `params` ask for a streamed answer (`"stream":true`) and reads it
    /// whole: the number of its parts, the bytes of every line, and its last line's `result` (an
    /// error throws). The parts are counted, not parsed.
    func stream(params: String) throws -> (parts: Int, bytes: Int, result: [String: Any]) {
        let id = nextID
        nextID += 1
        let request = Array((#"{"jsonrpc":"2.0","id":\#(id),"method":"fetch","params":\#(params)}"# + "\n").utf8)
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes { write(socket, $0.baseAddress.map { $0 + sent }, $0.count - sent) }
            guard count > 0 else { throw BenchmarkError("fetch: write failed, errno \(errno)") }
            sent += count
        }
        let partPrefix = Array(#"{"jsonrpc":"2.0","id":\#(id),"part":"#.utf8)
        var parts = 0, bytes = 0
        while true {
            let line = try readLine("fetch")
            bytes += line.count + 1
            if line.starts(with: partPrefix) {
                parts += 1
                continue
            }
            let answer = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            guard let result = answer?["result"] as? [String: Any] else {
                throw BenchmarkError("the streamed fetch failed: \(String(decoding: line.prefix(500), as: UTF8.self))")
            }
            return (parts, bytes, result)
        }
    }

    /// Sends one request line (`\n` included) as it is; returns the answer line.
    func exchange(_ request: [UInt8]) throws -> [UInt8] {
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes { write(socket, $0.baseAddress.map { $0 + sent }, $0.count - sent) }
            guard count > 0 else { throw BenchmarkError("write failed, errno \(errno)") }
            sent += count
        }
        return try readLine("answer")
    }

    /// Sends one request; returns its answer line.
    private func send(_ method: String, params: String) throws -> [UInt8] {
        let id = nextID
        nextID += 1
        let request = #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"# + "\n"
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { write(socket, $0.baseAddress.map { $0 + sent }, $0.count - sent) }
            guard count > 0 else { throw BenchmarkError("\(method): write failed, errno \(errno)") }
            sent += count
        }
        return try readLine(method)
    }

    private func readLine(_ method: String) throws -> [UInt8] {
        var scanned = 0  // bytes of `received` known to hold no newline
        while true {
            if let newline = received[scanned...].firstIndex(of: 0x0A) {
                let line = Array(received[..<newline])
                received.removeSubrange(...newline)
                return line
            }
            scanned = received.count
            let count = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
            guard count > 0 else { throw BenchmarkError("\(method): the server closed the connection") }
            received.append(contentsOf: chunk[..<count])
        }
    }
}
