import BenchmarkSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking line-protocol client for one benchmark thread.
final class RPCClient: @unchecked Sendable {
    // @unchecked: each client is used by one thread.
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var nextID = 1

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw BenchmarkError("cannot connect to port \(port)") }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(descriptor) }

    /// Calls `method`; returns the result, or throws with the error.
    func result(_ method: String, _ params: [String: Any]) throws -> [String: Any] {
        try result(try encoded(method, params))
    }

    /// A request line for `method`, made ahead of a timed call (`result(_:)`), with its id.
    func encoded(_ method: String, _ params: [String: Any]) throws -> (id: Int, method: String, line: [UInt8]) {
        let id = nextID
        nextID += 1
        var bytes = Array(try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": id, "method": method, "params": params]))
        bytes.append(0x0A)
        return (id, method, bytes)
    }

    /// Sends a request made by `encoded(_:_:)`; returns its result, or throws with the error.
    func result(_ request: (id: Int, method: String, line: [UInt8])) throws -> [String: Any] {
        let (id, method, bytes) = request
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw BenchmarkError("send failed") }
            sent += count
        }
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
                guard let answer = try JSONSerialization.jsonObject(with: line) as? [String: Any], answer["id"] as? Int == id else { continue }
                guard let result = answer["result"] as? [String: Any] else { throw BenchmarkError("\(method) failed: \(answer)") }
                return result
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw BenchmarkError("the server closed the connection") }
            buffer += chunk[..<count]
        }
    }
}
