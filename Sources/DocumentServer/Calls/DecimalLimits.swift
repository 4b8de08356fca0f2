/// What a decimal value can hold exactly (Foundation's `Decimal`): at most 38 significant
/// digits, times a power of ten from -128 to 127. A value sent that cannot be kept exactly
/// is refused, never rounded.
enum DecimalLimits {
    /// The most significant digits.
    static let maximumDigits = 38
    /// The range of the power of ten.
    static let exponents = -128...127

    /// Why `text` (a JSON number, or a decimal's string form) cannot be kept exactly, or nil
    /// when it can (or when it is not a plain number: the value's own parser says why).
    static func problem(_ text: String) -> String? {
        var bytes = Substring(text).utf8[...]
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var digits: [UInt8] = []
        var fractionDigits = 0
        var seenPoint = false
        while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: ".") && !seenPoint {
                seenPoint = true
            } else if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                digits.append(byte)
                if seenPoint { fractionDigits += 1 }
            } else {
                return nil
            }
        }
        var exponent = 0
        if !bytes.isEmpty {
            bytes = bytes.dropFirst()
            var negative = false
            if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") {
                negative = bytes.first == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            guard !bytes.isEmpty else { return nil }
            for byte in bytes {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                // Past a million the value is out of range either way; stop growing.
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(byte - UInt8(ascii: "0")) }
            }
            if negative { exponent = -exponent }
        }
        // The value is digits × 10^(exponent - fractionDigits); drop zeros that carry nothing.
        var power = exponent - fractionDigits
        let significant = digits.drop { $0 == UInt8(ascii: "0") }
        guard !significant.isEmpty else { return nil }
        var kept = significant[...]
        while kept.last == UInt8(ascii: "0") {
            kept = kept.dropLast()
            power += 1
        }
        if kept.count > maximumDigits {
            return "has \(kept.count) significant digits; a decimal holds at most \(maximumDigits) exactly"
        }
        // Trailing zeros can come back into the digits to bring a large power into range.
        let spare = maximumDigits - kept.count
        if power < exponents.lowerBound || power - spare > exponents.upperBound {
            return "is out of the decimal range: a decimal is at most \(maximumDigits) digits times a power of ten from \(exponents.lowerBound) to \(exponents.upperBound)"
        }
        return nil
    }
}
