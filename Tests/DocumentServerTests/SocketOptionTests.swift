import DocumentServer
import Foundation
import GraphCore
import Logging
import ServerTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The options of the sockets the server accepts, read from the accepted socket itself: the
/// server runs in the test's own process.
@Suite struct SocketOptionTests {
    /// Regression: `.socketOption(.tcp_nodelay)` is option 1 at the SOL_SOCKET level, which is
    /// SO_DEBUG, not TCP_NODELAY. Setting SO_DEBUG needs CAP_NET_ADMIN: run by any other user
    /// than root (as in the container) the server closed every connection it accepted. (Root
    /// could set it, and NIO turns TCP_NODELAY on by itself, so nothing else showed.)
    @Test func acceptedConnectionsHaveTCPNoDelayAndNotSODebug() async throws {
        let directory = try TemporaryDirectory()
        let model = try ObjectModel(json: Data(#"{"entities":[{"name":"Note","attributes":[{"name":"text","type":"string"}]}]}"#.utf8))
        let server = try DocumentServer(model: model, storeURL: directory.file("store.json"),
                                        configuration: ServerConfiguration(port: 0),
                                        logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let running = Task {
            defer { listening.finish() }
            try await server.run { _, port in listening.yield(port) }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await running.value
            Issue.record("the server stopped without listening")
            return
        }
        let checked = Result { try checkAcceptedSocket(port: port) }
        server.shutdown()
        try await running.value
        try checked.get()
    }

    private func checkAcceptedSocket(port: Int) throws {
        let client = try LineClient(port: UInt16(port))
        defer { client.close() }
        let answer = try client.request(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        #expect(answer["result"].string == "pong", "\(answer)")
        let accepted = try #require(acceptedSocket(localPort: port), "no accepted socket on port \(port) in this process")
        #expect(option(accepted, level: Int32(IPPROTO_TCP), name: TCP_NODELAY) == 1, "TCP_NODELAY is off")
        #expect(option(accepted, level: SOL_SOCKET, name: SO_DEBUG) == 0, "SO_DEBUG is on")
    }

    /// The descriptor of this process's connected (not listening) socket whose local port is `localPort`.
    private func acceptedSocket(localPort: Int) -> Int32? {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in descriptors.compactMap(Int32.init) {
            guard option(descriptor, level: SOL_SOCKET, name: SO_TYPE) == Int32(SOCK_STREAM.rawValue),
                  option(descriptor, level: SOL_SOCKET, name: SO_ACCEPTCONN) == 0 else { continue }
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            if named == 0, address.sin_family == sa_family_t(AF_INET), Int(UInt16(bigEndian: address.sin_port)) == localPort {
                return descriptor
            }
        }
        return nil
    }

    /// An integer socket option, or nil when it cannot be read (not a socket).
    private func option(_ descriptor: Int32, level: Int32, name: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor, level, name, &value, &length) == 0 ? value : nil
    }
}
