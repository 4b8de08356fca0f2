import Foundation

/// Reading JSON number text (as the parser hands it over) without making Strings.
package enum JSONNumberText {
    /// The integer a number's text spells, or nil when it has a fraction or an exponent or
    /// does not fit in 64 bits. The parser has checked the syntax already.
    @inline(__always)
    package static func integer(_ text: UnsafeRawBufferPointer) -> Int64? {
        guard let base = text.baseAddress, !text.isEmpty else { return nil }
        var index = 0
        let negative = base.load(as: UInt8.self) == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < text.count else { return nil }
        // Accumulated as a negative number, which reaches Int64.min.
        var value: Int64 = 0
        while index < text.count {
            let digit = base.load(fromByteOffset: index, as: UInt8.self) &- 48
            guard digit < 10 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
            index += 1
        }
        if negative { return value }
        return value == Int64.min ? nil : -value
    }

    /// Whether the text is an integer (no fraction, no exponent), of any size.
    package static func isIntegerSyntax(_ text: UnsafeRawBufferPointer) -> Bool {
        !text.contains(UInt8(ascii: ".")) && !text.contains(UInt8(ascii: "e")) && !text.contains(UInt8(ascii: "E"))
    }

    private static let powersOf10: [Double] = (0...22).map { pow(10, Double($0)) }

    /// The double nearest to the number (infinity when it is too large).
    package static func double(_ text: UnsafeRawBufferPointer) -> Double {
        if let fast = fastDouble(text) { return fast }
        // strtod needs a NUL-terminated copy; the C locale is used by Swift programs unless
        // they call setlocale, and JSON numbers have no thousands separators anyway.
        guard let source = text.baseAddress else { return .nan }
        if text.count < 64 {
            // A tuple on the stack: no allocation for the usual number.
            var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
            return withUnsafeMutableBytes(of: &buffer) { bytes in
                guard let base = bytes.baseAddress else { return .nan }
                memcpy(base, source, text.count)
                bytes[text.count] = 0
                return strtod(base.assumingMemoryBound(to: CChar.self), nil)
            }
        }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: text.count + 1)
        defer { buffer.deallocate() }
        memcpy(buffer, source, text.count)
        buffer[text.count] = 0
        return strtod(buffer, nil)
    }

    /// Clinger's fast path: a mantissa below 2^53 and a power of ten up to 10^22, both exact
    /// doubles, so that one correctly rounded multiplication or division gives the answer.
    @inline(__always)
    private static func fastDouble(_ text: UnsafeRawBufferPointer) -> Double? {
        guard let base = text.baseAddress else { return nil }
        var index = 0
        let count = text.count
        var negative = false
        if count > 0, base.load(as: UInt8.self) == UInt8(ascii: "-") { negative = true; index = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        var seenPoint = false
        while index < count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if byte == UInt8(ascii: ".") {
                seenPoint = true
            } else if byte &- 48 < 10 {
                if mantissa != 0 || byte != 48 { digits += 1 }
                guard digits <= 16 else { return nil }
                mantissa = mantissa * 10 + UInt64(byte &- 48)
                if seenPoint { scale -= 1 }
            } else {
                break
            }
            index += 1
        }
        if index < count {  // an exponent
            index += 1
            var exponentNegative = false
            if index < count {
                let sign = base.load(fromByteOffset: index, as: UInt8.self)
                if sign == UInt8(ascii: "-") { exponentNegative = true; index += 1 } else if sign == UInt8(ascii: "+") { index += 1 }
            }
            var exponent = 0
            while index < count {
                let digit = base.load(fromByteOffset: index, as: UInt8.self) &- 48
                guard digit < 10 else { return nil }
                exponent = exponent * 10 + Int(digit)
                guard exponent < 1000 else { return nil }
                index += 1
            }
            scale += exponentNegative ? -exponent : exponent
        }
        guard scale >= -22, scale <= 22, mantissa <= 1 << 53 else { return nil }
        var value = Double(mantissa)
        value = scale < 0 ? value / powersOf10[-scale] : value * powersOf10[scale]
        return negative ? -value : value
    }
}
