import Foundation

/// The names and numbers of the store file format (`docs/FILE_FORMAT.md`).
enum StoreFileFormat {
    /// The value of the top-level `format` key.
    static let name = "graphcore-json-store"
    /// The `formatVersion` this program reads and writes.
    static let version: Int64 = 1

    /// The reference after `reference`, saturated: `Int64.max` is the "none left" mark of
    /// `nextReference` (docs/FILE_FORMAT.md), never a trap.
    static func reference(after reference: Int64) -> Int64 {
        reference < Int64.max ? reference + 1 : Int64.max
    }
}

extension UnsafeRawBufferPointer {
    /// Whether these bytes are exactly the UTF-8 of `literal` (no String is made).
    @inline(__always)
    func equals(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount else { return false }
        guard let base = baseAddress, count > 0 else { return true }
        return memcmp(base, literal.utf8Start, count) == 0
    }

    /// Whether these bytes equal `bytes`.
    @inline(__always)
    func equals(_ bytes: [UInt8]) -> Bool {
        guard count == bytes.count else { return false }
        guard let base = baseAddress, count > 0 else { return true }
        return bytes.withUnsafeBytes { other in other.baseAddress.map { memcmp(base, $0, count) == 0 } ?? false }
    }

    /// Whether these bytes equal `other`.
    @inline(__always)
    func equals(_ other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count else { return false }
        guard let base = baseAddress, let otherBase = other.baseAddress, count > 0 else { return true }
        return memcmp(base, otherBase, count) == 0
    }

    /// The bytes as a String (invalid UTF-8 repaired; the parser has checked it already).
    var string: String { String(decoding: self, as: UTF8.self) }

    /// The bytes as a JSON string literal for messages, cut after `limit` characters.
    func quotedForMessage(limit: Int = 60) -> String {
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
