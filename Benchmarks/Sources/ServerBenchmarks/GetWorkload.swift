import NIOCore

/// `get` of one object by ID, each request naming a random object of the store. Requests are
/// encoded once, before the run, into a pool shared by every connection; an answer passes
/// when it is a result and nothing is missing.
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

    /// `count` pre-encoded requests, each for one ID drawn at random from `ids`.
    static func requests(ids: [String], count: Int) -> [ByteBuffer] {
        guard !ids.isEmpty else { return [] }
        return (0..<count).map { _ in
            let id = ids[Int.random(in: 0..<ids.count)]
            return ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["# + jsonString(id) + "]}}\n")
        }
    }

    static func factory(ids: [String], poolSize: Int = 8192) -> WorkloadFactory {
        let pool = requests(ids: ids, count: poolSize)
        return { connection in GetWorkload(requests: pool, start: connection * 977) }
    }
}
