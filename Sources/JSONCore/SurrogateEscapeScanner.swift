import Foundation
import GraphCore

/// Finds `\u` escapes of a high surrogate (`\uD800`...`\uDBFF`) that are not followed by a
/// `\u` escape of a low surrogate (`\uDC00`...`\uDFFF`).
///
/// yajl decodes such an unpaired escape to `?` (or a bad pair to another character), so the
/// string would not read back as written; the parser refuses it instead. (An unpaired *low*
/// surrogate escape decodes to bytes that the UTF-8 check refuses.) Only backslashes are
/// looked at, found with `memchr`: store files have few, so the scan costs next to nothing.
/// An escape cut by the end of a chunk is carried over to the next one.
struct SurrogateEscapeScanner {
    /// The bytes of an escape cut by the end of the previous chunk, from its backslash.
    private var carry: [UInt8] = []

    /// The offset in the whole input of the first unpaired high-surrogate escape in `chunk`
    /// (whose first byte is at `offset`), or nil.
    mutating func firstUnpaired(in chunk: UnsafeRawBufferPointer, at offset: Int) -> Int? {
        if carry.isEmpty { return scan(chunk, at: offset) }
        // An escape straddles two chunks (rare): scan the carried bytes and this chunk as one.
        var window = carry
        carry = []
        window.append(contentsOf: chunk)
        let windowStart = offset - (window.count - chunk.count)
        return window.withUnsafeBytes { scan($0, at: windowStart) }
    }

    private mutating func scan(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        let backslash = UInt8(ascii: "\\")
        var position = 0
        while position < count, let found = memchr(base + position, Int32(backslash), count - position) {
            let start = UnsafeRawPointer(found) - base
            var end = start
            while end < count, bytes[end] == backslash { end += 1 }
            // Pairs of backslashes are escaped backslashes; an odd one escapes the byte after the run.
            if (end - start) % 2 == 0 {
                position = end
                continue
            }
            let escape = end - 1
            if end == count {
                carry = [backslash]
                return nil
            }
            guard bytes[end] == UInt8(ascii: "u") else {
                position = end + 1
                continue
            }
            guard escape + 6 <= count else {
                carry = Array(bytes[escape...])
                return nil
            }
            guard let unit = Self.hex(bytes, at: escape + 2), (0xD800...0xDBFF).contains(unit) else {
                position = escape + 6  // not a high surrogate (bad hex digits are yajl's to refuse)
                continue
            }
            // The next six bytes must be `\uDC00`...`\uDFFF`; those already here are checked now.
            let available = min(count, escape + 12)
            for index in (escape + 6)..<available where !Self.isLowSurrogateEscape(bytes[index], at: index - escape - 6) {
                return offset + escape
            }
            if available < escape + 12 {
                carry = Array(bytes[escape...])
                return nil
            }
            position = escape + 12
        }
        return nil
    }

    /// Whether `byte` can be at `position` (0...5) of `\uDC00`...`\uDFFF`.
    private static func isLowSurrogateEscape(_ byte: UInt8, at position: Int) -> Bool {
        switch position {
        case 0: return byte == UInt8(ascii: "\\")
        case 1: return byte == UInt8(ascii: "u")
        case 2: return byte == UInt8(ascii: "d") || byte == UInt8(ascii: "D")
        case 3: return (UInt8(ascii: "c")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "C")...UInt8(ascii: "F")).contains(byte)
        default: return byte.isHexDigit
        }
    }

    /// The value of four hexadecimal digits at `index`, or nil.
    private static func hex(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        var value = 0
        for byte in bytes[index..<(index + 4)] {
            guard let digit = HexDigits.value(of: byte) else { return nil }
            value = value * 16 + Int(digit)
        }
        return value
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
