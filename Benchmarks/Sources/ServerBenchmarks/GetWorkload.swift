import NIOCore

/// `get` of one object by ID, each request naming a random object of the store. Requests are
/// encoded once, before the run, into a pool shared by every connection: every ID of the
/// store once, shuffled (the server caches the wire form of objects it has sent, so a pool
/// of a few thousand IDs would measure its cache only), each connection starting at a
/// random place. An answer passes when it is a result and nothing is missing.
final class GetWorkload: ConnectionWorkload {
    private static let suffix = Array(#""missing":[]}}"#.utf8)
    private let requests: [ByteBuffer]
    private var next: Int

    init(requests: [ByteBuffer], start: Int) {
        self.requests = requests
        self.next = requests.isEmpty ? 0 : start % requests.count
    }

    func nextRequest() -> ByteBuffer {
        defer { next = next + 1 == requests.count ? 0 : next + 1 }
        return requests[next]
    }

    func check(_ line: UnsafeRawBufferPointer) -> Bool {
        ResponseBytes.hasPrefix(line, ResponseBytes.result) && ResponseBytes.hasSuffix(line, Self.suffix)
    }

    /// One pre-encoded request for each of `ids`, in random order.
    static func requests(ids: [String]) -> [ByteBuffer] {
        ids.shuffled().map { id in
            ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["# + jsonString(id) + "]}}\n")
        }
    }

    static func factory(ids: [String]) -> WorkloadFactory {
        let pool = requests(ids: ids)
        return { _ in GetWorkload(requests: pool, start: Int.random(in: 0..<max(pool.count, 1))) }
    }
}
