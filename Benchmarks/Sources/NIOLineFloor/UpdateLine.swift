import NIOCore

/// The least a durable save's server must read of a request and write of its answer: the ID
/// and version of the one object a benchmark `save` line updates
/// (`{"…","params":{"update":[{"id":"ID","version":N,…`), and the answer the docserver gives
/// it (`docs/PROTOCOL.md`, `save`) with the next version and the commit's number.
struct UpdateLine: Sendable {
    let id: ByteBuffer
    let version: Int64

    private static let idKey = Array(#""update":[{"id":""#.utf8)
    private static let versionKey = Array(#""version":"#.utf8)

    /// Nil when the line is not such an update.
    init?(_ line: ByteBuffer) {
        let bytes = line.readableBytesView
        guard let idStart = Self.end(of: Self.idKey, in: bytes),
              let idEnd = bytes[idStart...].firstIndex(of: UInt8(ascii: "\"")),
              let id = line.getSlice(at: idStart, length: idEnd - idStart),
              var digit = Self.end(of: Self.versionKey, in: bytes[idEnd...]) else { return nil }
        var version: Int64 = 0
        while digit < bytes.endIndex, bytes[digit] >= UInt8(ascii: "0"), bytes[digit] <= UInt8(ascii: "9"), version < Int64.max / 10 - 9 {
            version = version * 10 + Int64(bytes[digit] - UInt8(ascii: "0"))
            digit += 1
        }
        self.id = id
        self.version = version
    }

    /// `{"jsonrpc":"2.0","id":1,"result":{"ids":{},"versions":{"ID":N+1},"deleted":[],"updated":[],"seq":S}}\n`
    func answer(sequence: Int64, allocator: ByteBufferAllocator) -> ByteBuffer {
        var out = allocator.buffer(capacity: 128 + id.readableBytes)
        out.writeString(#"{"jsonrpc":"2.0","id":1,"result":{"ids":{},"versions":{""#)
        out.writeImmutableBuffer(id)
        out.writeString(#"":\#(version + 1)},"deleted":[],"updated":[],"seq":\#(sequence)}}"#)
        out.writeInteger(UInt8(ascii: "\n"))
        return out
    }

    /// The index just past the first `needle` in `bytes`.
    private static func end<Bytes: Collection<UInt8>>(of needle: [UInt8], in bytes: Bytes) -> Bytes.Index? {
        var start = bytes.startIndex
        while let first = bytes[start...].firstIndex(of: needle[0]) {
            var at = first, matched = 0
            while matched < needle.count, at < bytes.endIndex, bytes[at] == needle[matched] {
                matched += 1
                at = bytes.index(after: at)
            }
            if matched == needle.count { return at }
            start = bytes.index(after: first)
        }
        return nil
    }
}
