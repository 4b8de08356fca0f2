import NIOCore

/// `fetch` of Songs through an index: each request from a pool encoded before the run (an
/// indexed equality on a random Song's `plays` or `title`, or the most played), checked to
/// hold exactly `expected` objects.
final class IndexedFetchWorkload: ConnectionWorkload {
    private static let objectStart = Array(#"{"id":""#.utf8)
    private let requests: [ByteBuffer]
    private let expected: Int
    private var next: Int

    init(requests: [ByteBuffer], expected: Int, start: Int) {
        self.requests = requests
        self.expected = expected
        self.next = requests.isEmpty ? 0 : start % requests.count
    }

    func nextRequest() -> ByteBuffer {
        defer { next = next + 1 == requests.count ? 0 : next + 1 }
        return requests[next]
    }

    func check(_ line: UnsafeRawBufferPointer) -> Bool {
        ResponseBytes.hasPrefix(line, ResponseBytes.result) && ResponseBytes.count(of: Self.objectStart, in: line) == expected
    }

    /// `fetch` of the one Song whose `plays` is a random value below `songCount` (the store's
    /// Songs have distinct `plays` 0, 1, 2, …).
    static func byPlays(songCount: Int, poolSize: Int = 65_536) -> WorkloadFactory {
        factory(expected: 1, (0..<poolSize).map { _ in
            #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"plays == %d","arguments":["#
                + "\(Int.random(in: 0..<max(songCount, 1)))]}}\n"
        })
    }

    /// `fetch` of the one Song titled `Song <n>`, `n` random below `songCount`.
    static func byTitle(songCount: Int, poolSize: Int = 65_536) -> WorkloadFactory {
        factory(expected: 1, (0..<poolSize).map { _ in
            #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"title == %@","arguments":["Song "#
                + "\(Int.random(in: 0..<max(songCount, 1)))\"]}}\n"
        })
    }

    /// The 20 most played Songs.
    static func mostPlayed() -> WorkloadFactory {
        factory(expected: 20, [#"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","sort":[{"key":"plays","ascending":false}],"limit":20}}"# + "\n"])
    }

    private static func factory(expected: Int, _ lines: [String]) -> WorkloadFactory {
        let pool = lines.map { ByteBuffer(string: $0) }
        return { connection in IndexedFetchWorkload(requests: pool, expected: expected, start: connection * 1_297) }
    }
}
