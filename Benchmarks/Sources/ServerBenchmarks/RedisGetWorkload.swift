import NIOCore

/// Redis `GET` through the project's own load generator, so that Redis and the docserver
/// face the same client (the same SwiftNIO event-loop thread, connections and closed-loop
/// pacing), not only redis-benchmark's C client.
///
/// Each request is the RESP command redis-benchmark's GET test sends,
/// `*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n`; each answer is a bulk string
/// (`$3\r\nxxx\r\n`), which passes when it holds the value set before the run.
final class RedisGetWorkload: ConnectionWorkload {
    private let request: ByteBuffer
    private let value: [UInt8]

    init(key: String, value: String) {
        request = ByteBuffer(string: "*2\r\n$3\r\nGET\r\n$\(key.utf8.count)\r\n\(key)\r\n")
        self.value = Array(value.utf8)
    }

    func nextRequest() -> ByteBuffer { request }

    func check(_ body: UnsafeRawBufferPointer) -> Bool {
        body.count == value.count && value.withUnsafeBytes { $0.elementsEqual(body) }
    }

    /// A bulk string `$n\r\n` + n bytes + `\r\n` (its n bytes are the body); any other answer
    /// (an error `-…\r\n`, a nil bulk `$-1\r\n`) is one line, which fails the check.
    func answer(in bytes: UnsafeRawBufferPointer) -> (length: Int, body: UnsafeRawBufferPointer)? {
        guard let lineEnd = bytes.firstIndex(of: 0x0A) else { return nil }
        guard bytes.first == UInt8(ascii: "$"), lineEnd >= 2, bytes[lineEnd - 1] == 0x0D else {
            return (lineEnd + 1, UnsafeRawBufferPointer(rebasing: bytes[0..<lineEnd]))
        }
        var length = 0
        for digit in bytes[1..<(lineEnd - 1)] {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9"), length < 1 << 30 else {
                return (lineEnd + 1, UnsafeRawBufferPointer(rebasing: bytes[0..<lineEnd]))
            }
            length = length * 10 + Int(digit - UInt8(ascii: "0"))
        }
        let end = lineEnd + 1 + length + 2
        guard bytes.count >= end else { return nil }
        return (end, UnsafeRawBufferPointer(rebasing: bytes[(lineEnd + 1)..<(lineEnd + 1 + length)]))
    }

    static func factory(key: String, value: String) -> WorkloadFactory {
        { _ in RedisGetWorkload(key: key, value: value) }
    }
}
