import Foundation
import ServerTestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on 127.0.0.1 that plays a misbehaving server, for what a real `docserver`
/// never does on cue: it answers `hello` as a docserver would, and every other request as the
/// script says (an answer, a line of garbage, closing the connection, or silence).
///
/// ```swift
/// let listener = try ScriptedListener { method in method == "save" ? .close : .result("\"pong\"") }
/// let client = DocumentClient(configuration: ClientConfiguration(port: listener.port))
/// ```
///
/// Plain sockets on a thread of its own, one connection at a time; it stops when released.
final class ScriptedListener: Sendable {
    enum Reply: Sendable {
        /// Answers with this JSON text as the `result`.
        case result(String)
        /// Sends this line as it is (`\n` added).
        case line(String)
        /// Sends this line as it is (`\n` added), then closes the connection.
        case lineThenClose(String)
        /// Closes the connection without answering.
        case close
        /// Never answers; the connection stays open.
        case silence
    }

    let port: Int
    private let loop: Loop

    /// - Parameters:
    ///   - modelHash: the `modelHash` its `hello` announces.
    ///   - script: what to do with each request other than `hello`, by method.
    init(modelHash: String = "none", script: @escaping @Sendable (_ method: String) -> Reply) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socket in
                bind(descriptor, socket, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, socket, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw HarnessError("cannot listen on 127.0.0.1: errno \(errno)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        loop = Loop(descriptor: descriptor, modelHash: modelHash, script: script)
        let loop = self.loop
        Thread.detachNewThread { loop.run() }
    }

    deinit { loop.stop() }

    /// The methods of the requests received so far, `hello` included, in order.
    var methods: [String] { loop.methods.withLock { $0 } }

    /// The accepting and answering, on the listener's thread.
    private final class Loop: Sendable {
        let descriptor: Int32
        let modelHash: String
        let script: @Sendable (String) -> Reply
        let stopped = Atomic<Bool>(false)
        let methods = Mutex<[String]>([])

        init(descriptor: Int32, modelHash: String, script: @escaping @Sendable (String) -> Reply) {
            self.descriptor = descriptor
            self.modelHash = modelHash
            self.script = script
        }

        func stop() { stopped.store(true, ordering: .relaxed) }

        func run() {
            defer { close(descriptor) }
            while waitReadable(descriptor) {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { continue }
                serve(connection)
                close(connection)
            }
        }

        /// Polls until the descriptor can be read; false once the listener stops.
        private func waitReadable(_ descriptor: Int32) -> Bool {
            while !stopped.load(ordering: .relaxed) {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, 50) > 0 { return true }
            }
            return false
        }

        /// Reads request lines and answers them until the client or the script closes.
        private func serve(_ connection: Int32) {
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while waitReadable(connection) {
                let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                pending += chunk[..<count]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = Data(pending[..<newline])
                    pending.removeSubrange(...newline)
                    guard answer(line, on: connection) else { return }
                }
            }
        }

        /// Answers one request; false when the connection is to be closed.
        private func answer(_ line: Data, on connection: Int32) -> Bool {
            let request = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any]
            let method = request?["method"] as? String ?? "(unreadable)"
            let id = (request?["id"] as? NSNumber).map { "\($0.int64Value)" } ?? "null"
            methods.withLock { $0.append(method) }
            if method == "hello" {
                return send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"server":"docserver","version":"scripted","protocol":1,"storeUUID":"5C817ED0-0000-4000-8000-000000000000","modelHash":"\#(modelHash)"}}"#, on: connection)
            }
            switch script(method) {
            case .result(let json): return send(#"{"jsonrpc":"2.0","id":\#(id),"result":\#(json)}"#, on: connection)
            case .line(let text): return send(text, on: connection)
            case .lineThenClose(let text):
                _ = send(text, on: connection)
                return false
            case .close: return false
            case .silence: return true
            }
        }

        private func send(_ line: String, on connection: Int32) -> Bool {
            let bytes = Array((line + "\n").utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }
    }
}
