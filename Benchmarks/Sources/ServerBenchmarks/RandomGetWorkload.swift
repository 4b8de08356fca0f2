import NIOCore

/// `get` of one object by ID, each request naming an object drawn at random when it is sent,
/// as `pgbench`'s `\set id random(...)` draws each transaction's row: among the references
/// `all`, or with probability `hotShare` among `hot` (a hot set). A pool of encoded requests
/// (``GetWorkload``) cycles: 400,000 of them over 2,000,003 objects made a working set of
/// 400,000, where `pgbench` reads all of them. An answer passes when it is a result and
/// nothing is missing.
final class RandomGetWorkload: ConnectionWorkload {
    private static let suffix = Array(#""missing":[]}}"#.utf8)
    private let head: [UInt8]
    private let tail = Array(#""]}}"#.utf8) + [0x0A]
    private let all: ClosedRange<Int64>
    private let hot: ClosedRange<Int64>?
    private let hotShare: Double

    /// `idPrefix`: an object's ID without its reference (`graph://<store>/Song/`).
    init(idPrefix: String, all: ClosedRange<Int64>, hot: ClosedRange<Int64>? = nil, hotShare: Double = 0) {
        head = Array((#"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":[""# + idPrefix).utf8)
        self.all = all
        self.hot = hot
        self.hotShare = hotShare
    }

    func nextRequest() -> ByteBuffer {
        let reference: Int64
        if let hot, Double.random(in: 0..<1) < hotShare {
            reference = Int64.random(in: hot)
        } else {
            reference = Int64.random(in: all)
        }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(head.count + 20 + tail.count)
        buffer.writeBytes(head)
        buffer.writeString(String(reference))
        buffer.writeBytes(tail)
        return buffer
    }

    func check(_ line: UnsafeRawBufferPointer) -> Bool {
        ResponseBytes.hasPrefix(line, ResponseBytes.result) && ResponseBytes.hasSuffix(line, Self.suffix)
    }

    static func factory(idPrefix: String, all: ClosedRange<Int64>, hot: ClosedRange<Int64>? = nil, hotShare: Double = 0) -> WorkloadFactory {
        { _ in RandomGetWorkload(idPrefix: idPrefix, all: all, hot: hot, hotShare: hotShare) }
    }
}
