import NIOCore

/// `fetch` of Songs with a predicate that matches exactly `size` of them: the store gives
/// the Songs distinct `plays` values 0..<songCount, so `plays >= a AND plays < a + size`
/// names `size` Songs (the server has no index: each fetch scans every Song). An answer
/// passes when it is a result holding `size` objects.
final class FetchWorkload: ConnectionWorkload {
    private static let objectStart = Array(#"{"id":""#.utf8)
    private let requests: [ByteBuffer]
    private let size: Int
    private var next: Int

    init(requests: [ByteBuffer], size: Int, start: Int) {
        self.requests = requests
        self.size = size
        self.next = requests.isEmpty ? 0 : start % requests.count
    }

    func nextRequest() -> ByteBuffer {
        defer { next = next + 1 == requests.count ? 0 : next + 1 }
        return requests[next]
    }

    func check(_ line: UnsafeRawBufferPointer) -> Bool {
        ResponseBytes.hasPrefix(line, ResponseBytes.result) && ResponseBytes.count(of: Self.objectStart, in: line) == size
    }

    static func factory(songCount: Int, size: Int, poolSize: Int = 1024) -> WorkloadFactory {
        let pool = (0..<poolSize).map { _ in
            let low = Int.random(in: 0...max(songCount - size, 0))
            return ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"plays >= %d AND plays < %d","arguments":["#
                + "\(low),\(low + size)]}}\n")
        }
        return { connection in FetchWorkload(requests: pool, size: size, start: connection * 131) }
    }
}
