import JSONCore
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection's side of a workload: it makes each request and judges each answer.
/// An instance belongs to one connection and is only used on that connection's event loop.
protocol ConnectionWorkload: AnyObject {
    /// The next request line, `\n` included.
    func nextRequest() -> ByteBuffer
    /// Whether `line` (without its `\n`) is a successful answer to the last request.
    func check(_ line: UnsafeRawBufferPointer) -> Bool
    /// The first whole answer at the start of `bytes`: how many bytes it takes (its ending
    /// included) and the part ``check(_:)`` judges; nil while it is incomplete. The default is
    /// one line (the docserver's framing); Redis answers with RESP frames.
    func answer(in bytes: UnsafeRawBufferPointer) -> (length: Int, body: UnsafeRawBufferPointer)?
}

extension ConnectionWorkload {
    func answer(in bytes: UnsafeRawBufferPointer) -> (length: Int, body: UnsafeRawBufferPointer)? {
        guard let base = bytes.baseAddress, let newline = memchr(base, 0x0A, bytes.count) else { return nil }
        let length = base.distance(to: UnsafeRawPointer(newline))
        var line = UnsafeRawBufferPointer(rebasing: bytes[0..<length])
        if line.last == 0x0D { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
        return (length + 1, line)
    }
}

/// Makes each connection's workload; `connection` counts from 0.
typealias WorkloadFactory = @Sendable (_ connection: Int) -> any ConnectionWorkload

/// Byte-level checks of answer lines, without parsing the JSON: the server writes keys in a
/// fixed order without spaces (PROTOCOL.md, Messages), so a successful answer to a request
/// with `"id":1` starts with `ResponseBytes.result`.
enum ResponseBytes {
    static let result = Array(#"{"jsonrpc":"2.0","id":1,"result":"#.utf8)

    static func hasPrefix(_ line: UnsafeRawBufferPointer, _ prefix: [UInt8]) -> Bool {
        guard line.count >= prefix.count, let base = line.baseAddress else { return prefix.isEmpty }
        return prefix.withUnsafeBytes { bytes in bytes.baseAddress.map { memcmp($0, base, prefix.count) == 0 } ?? true }
    }

    static func hasSuffix(_ line: UnsafeRawBufferPointer, _ suffix: [UInt8]) -> Bool {
        guard line.count >= suffix.count, let base = line.baseAddress else { return suffix.isEmpty }
        return suffix.withUnsafeBytes { bytes in
            bytes.baseAddress.map { memcmp($0, base + (line.count - suffix.count), suffix.count) == 0 } ?? true
        }
    }

    /// The offset just past the first occurrence of `needle` at or after `start`, or nil.
    static func end(of needle: [UInt8], in line: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
        guard let base = line.baseAddress, !needle.isEmpty, line.count >= needle.count else { return nil }
        return needle.withUnsafeBytes { needleBytes -> Int? in
            guard let needleBase = needleBytes.baseAddress else { return nil }
            var offset = start
            while offset + needle.count <= line.count {
                // memchr for the first byte, then compare the rest.
                guard let hit = memchr(base + offset, Int32(needle[0]), line.count - offset - needle.count + 1) else { return nil }
                let at = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + at, needleBase, needle.count) == 0 { return at + needle.count }
                offset = at + 1
            }
            return nil
        }
    }

    /// How many times `needle` occurs in `line` (not overlapping).
    static func count(of needle: [UInt8], in line: UnsafeRawBufferPointer) -> Int {
        var count = 0, offset = 0
        while let end = end(of: needle, in: line, from: offset) {
            count += 1
            offset = end
        }
        return count
    }

    /// The non-negative integer written right after `needle`, or nil.
    static func integer(after needle: [UInt8], in line: UnsafeRawBufferPointer) -> Int? {
        guard var offset = end(of: needle, in: line) else { return nil }
        var value = 0, digits = 0
        while offset < line.count, line[offset] >= UInt8(ascii: "0"), line[offset] <= UInt8(ascii: "9"), digits < 18 {
            value = value * 10 + Int(line[offset] - UInt8(ascii: "0"))
            offset += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}

/// A JSON string literal for `text`, escaped by the project's own generator.
func jsonString(_ text: String) -> String {
    JSONValue.string(text).jsonText
}
