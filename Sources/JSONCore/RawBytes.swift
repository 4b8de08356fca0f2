import Foundation

extension UnsafeRawBufferPointer {
    /// Whether these bytes are exactly the UTF-8 of `literal` (no String is made).
    @inline(__always)
    package func equals(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount else { return false }
        guard let base = baseAddress, count > 0 else { return true }
        return Self.same(base, UnsafeRawPointer(literal.utf8Start), count)
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
        return Self.same(base, otherBase, count)
    }

    /// Whether `count` bytes at `a` and `b` are equal: short runs (keys, names) compared
    /// inline eight bytes at a time, longer ones by `memcmp`.
    @inline(__always)
    static func same(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
        guard count <= 32 else { return memcmp(a, b, count) == 0 }
        var index = 0
        while index + 8 <= count {
            if a.loadUnaligned(fromByteOffset: index, as: UInt64.self) != b.loadUnaligned(fromByteOffset: index, as: UInt64.self) {
                return false
            }
            index += 8
        }
        while index < count {
            if a.load(fromByteOffset: index, as: UInt8.self) != b.load(fromByteOffset: index, as: UInt8.self) { return false }
            index += 1
        }
        return true
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
