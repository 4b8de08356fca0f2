import NIOCore

/// Redis `SET key:<connection> <n>` through the project's own load generator: the saving
/// clients beside Redis GET, as ``UpdateWorkload``'s 50 savers run beside the docserver's `get`
/// (each connection writes its own key, one command in flight). On the server with
/// `appendfsync always` each SET is answered once it is in the append-only file and `fsync`ed.
/// An answer passes when it is `+OK`.
final class RedisSetWorkload: ConnectionWorkload {
    private static let ok = Array("+OK".utf8)
    private let key: String
    private var counter = 0

    init(key: String) {
        self.key = key
    }

    func nextRequest() -> ByteBuffer {
        counter += 1
        let value = String(counter)
        return ByteBuffer(string: "*3\r\n$3\r\nSET\r\n$\(key.utf8.count)\r\n\(key)\r\n$\(value.utf8.count)\r\n\(value)\r\n")
    }

    func check(_ line: UnsafeRawBufferPointer) -> Bool {
        line.elementsEqual(Self.ok)
    }

    /// Connection `n` writes `key:saver:<n>`.
    static let factory: WorkloadFactory = { connection in RedisSetWorkload(key: "key:saver:\(connection)") }
}
