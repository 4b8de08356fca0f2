import Foundation

extension UnsafeRawBufferPointer {
    /// Whether these bytes are exactly the UTF-8 of `literal` (no String is made).
    @inline(__always)
    package func equals(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount else { return false }
        guard let base = baseAddress, count > 0 else { return true }
        return memcmp(base, literal.utf8Start, count) == 0
    }

    /// Whether these bytes equal `bytes`.
    @inline(__always)
    package func equals(_ bytes: [UInt8]) -> Bool {
        guard count == bytes.count else { return false }
        guard let base = baseAddress, count > 0 else { return true }
        return bytes.withUnsafeBytes { other in other.baseAddress.map { memcmp(base, $0, count) == 0 } ?? false }
    }

    /// Whether these bytes equal `other`.
    @inline(__always)
    package func equals(_ other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count else { return false }
        guard let base = baseAddress, let otherBase = other.baseAddress, count > 0 else { return true }
        return memcmp(base, otherBase, count) == 0
    }

    /// The bytes as a String (invalid UTF-8 repaired; the parser has checked it already).
    package var string: String { String(decoding: self, as: UTF8.self) }

    /// The bytes as a JSON string literal for messages, cut after `limit` characters.
    package func quotedForMessage(limit: Int = 60) -> String {
        var text = string
        let cut = text.count > limit
        if cut { text = String(text.prefix(limit)) }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + (cut ? "…\"" : "\"")
    }
}
