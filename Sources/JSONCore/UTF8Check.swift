/// Strict UTF-8 validation (RFC 3629): no overlong forms, no surrogates (U+D800...U+DFFF),
/// nothing past U+10FFFF. yajl's own check accepts some of these.
package enum UTF8Check {
    /// Whether `bytes` is valid UTF-8; ASCII is checked eight bytes at a time.
    @inline(__always)
    package static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        firstInvalidIndex(bytes) == nil
    }

    /// The index of the first byte of the first sequence that is not valid UTF-8 (its lead
    /// byte, or a stray continuation byte), or nil when all of `bytes` is valid.
    @inline(__always)
    package static func firstInvalidIndex(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var index = 0
        while index + 8 <= count {
            if base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
            index += 8
        }
        while index < count {
            if base.load(fromByteOffset: index, as: UInt8.self) >= 0x80 {
                return firstInvalidMultibyte(base, from: index, count: count)
            }
            index += 1
        }
        return nil
    }

    private static func firstInvalidMultibyte(_ base: UnsafeRawPointer, from start: Int, count: Int) -> Int? {
        var index = start
        @inline(__always) func byte(_ i: Int) -> UInt8 { base.load(fromByteOffset: i, as: UInt8.self) }
        @inline(__always) func isContinuation(_ i: Int) -> Bool { i < count && byte(i) & 0xC0 == 0x80 }
        while index < count {
            let lead = byte(index)
            switch lead {
            case 0x00...0x7F:
                index += 1
            case 0xC2...0xDF:
                guard isContinuation(index + 1) else { return index }
                index += 2
            case 0xE0...0xEF:
                guard index + 2 < count, isContinuation(index + 1), isContinuation(index + 2) else { return index }
                let second = byte(index + 1)
                if lead == 0xE0, second < 0xA0 { return index }  // overlong
                if lead == 0xED, second > 0x9F { return index }  // surrogate
                index += 3
            case 0xF0...0xF4:
                guard index + 3 < count, isContinuation(index + 1), isContinuation(index + 2), isContinuation(index + 3)
                else { return index }
                let second = byte(index + 1)
                if lead == 0xF0, second < 0x90 { return index }  // overlong
                if lead == 0xF4, second > 0x8F { return index }  // past U+10FFFF
                index += 4
            default:
                return index  // continuation byte without a lead, C0, C1, F5...FF
            }
        }
        return nil
    }
}
