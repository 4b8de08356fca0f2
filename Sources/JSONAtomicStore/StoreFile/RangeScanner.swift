import GraphCore
import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// A fast JSON reader for the ranges of a store file parsed on other threads
/// (``StoreFileRanges``): the same events as ``JSONEventParser`` (yajl) for the text it
/// accepts, with direct calls into its handler.
///
/// It is conservative: it accepts only text that is valid JSON beyond doubt (and that the
/// strict parser accepts with the same events), and declines anything else (returns
/// false) without saying why. Declining is always safe: a declined range is parsed in
/// place by the parser of the whole file, which gives the error with its place. So text
/// that is valid but unusual (an escaped surrogate pair, `\u0000`, nesting deeper than
/// ``maximumDepth``) is declined too.
struct RangeScanner<Handler: JSONEventHandler> {
    let handler: Handler
    /// Unescaped strings.
    private var scratch: UnsafeMutableRawBufferPointer
    /// Deeper nesting is declined.
    static var maximumDepth: Int { 64 }

    init(handler: Handler) {
        self.handler = handler
        scratch = .allocate(byteCount: 256, alignment: 8)
    }

    /// Frees the scanner's buffer.
    func deallocate() { scratch.deallocate() }

    /// Reads `bytes` as the elements of a JSON array (`bytes` is what stands between `[` and
    /// `]`): `startArray`, each element's events, `endArray`. False when declined.
    mutating func scanElements(_ bytes: UnsafeRawBufferPointer) throws -> Bool {
        try scan(bytes, asElements: true)
    }

    /// Reads `bytes` as one JSON text (a value with whitespace around it). False when declined.
    mutating func scanDocument(_ bytes: UnsafeRawBufferPointer) throws -> Bool {
        try scan(bytes, asElements: false)
    }

    // MARK: - Structure

    private mutating func scan(_ bytes: UnsafeRawBufferPointer, asElements: Bool) throws -> Bool {
        guard let start = bytes.baseAddress else { return asElements ? try emptyElements() : false }
        let end = start + bytes.count
        var p = start
        // Open containers: true for an object. `asElements` has the implicit array at the bottom.
        var open: [Bool] = []
        open.reserveCapacity(8)
        if asElements {
            try handler.startArray()
            Self.skipSpace(&p, end)
            if p == end {
                try handler.endArray()
                return true
            }
        }
        while true {
            // A value is expected at `p` (after whitespace).
            Self.skipSpace(&p, end)
            guard p < end else { return false }
            switch p.load(as: UInt8.self) {
            case UInt8(ascii: "{"):
                p += 1
                try handler.startObject()
                Self.skipSpace(&p, end)
                guard p < end else { return false }
                if p.load(as: UInt8.self) == UInt8(ascii: "}") {
                    p += 1
                    try handler.endObject()
                } else {
                    guard open.count < Self.maximumDepth, try key(&p, end) else { return false }
                    open.append(true)
                    continue
                }
            case UInt8(ascii: "["):
                p += 1
                try handler.startArray()
                Self.skipSpace(&p, end)
                guard p < end else { return false }
                if p.load(as: UInt8.self) == UInt8(ascii: "]") {
                    p += 1
                    try handler.endArray()
                } else {
                    guard open.count < Self.maximumDepth else { return false }
                    open.append(false)
                    continue
                }
            case UInt8(ascii: "\""):
                p += 1
                guard let text = try string(&p, end) else { return false }
                try handler.string(text)
            case UInt8(ascii: "t"):
                guard Self.literal(&p, end, "true") else { return false }
                try handler.bool(true)
            case UInt8(ascii: "f"):
                guard Self.literal(&p, end, "false") else { return false }
                try handler.bool(false)
            case UInt8(ascii: "n"):
                guard Self.literal(&p, end, "null") else { return false }
                try handler.null()
            default:
                let first = p
                guard Self.number(&p, end) else { return false }
                try handler.number(UnsafeRawBufferPointer(start: first, count: p - first))
            }
            // After a value: close what ends here, then a comma leads to the next value.
            while true {
                Self.skipSpace(&p, end)
                guard let isObject = open.last else {
                    if asElements {
                        if p == end {
                            try handler.endArray()
                            return true
                        }
                        guard p.load(as: UInt8.self) == UInt8(ascii: ",") else { return false }
                        p += 1
                        break
                    }
                    return p == end
                }
                guard p < end else { return false }
                let byte = p.load(as: UInt8.self)
                p += 1
                if byte == UInt8(ascii: ",") {
                    if isObject {
                        Self.skipSpace(&p, end)
                        guard try key(&p, end) else { return false }
                    }
                    break
                }
                guard byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                open.removeLast()
                if isObject { try handler.endObject() } else { try handler.endArray() }
            }
        }
    }

    private func emptyElements() throws -> Bool {
        try handler.startArray()
        try handler.endArray()
        return true
    }

    /// A key and its colon, at `p`; false when declined.
    private mutating func key(_ p: inout UnsafeRawPointer, _ end: UnsafeRawPointer) throws -> Bool {
        guard p < end, p.load(as: UInt8.self) == UInt8(ascii: "\"") else { return false }
        p += 1
        guard let text = try string(&p, end) else { return false }
        try handler.key(text)
        Self.skipSpace(&p, end)
        guard p < end, p.load(as: UInt8.self) == UInt8(ascii: ":") else { return false }
        p += 1
        return true
    }

    // MARK: - Tokens

    @inline(__always)
    private static func skipSpace(_ p: inout UnsafeRawPointer, _ end: UnsafeRawPointer) {
        while p < end {
            switch p.load(as: UInt8.self) {
            case 0x20, 0x0A, 0x0D, 0x09: p += 1
            default: return
            }
        }
    }

    @inline(__always)
    private static func literal(_ p: inout UnsafeRawPointer, _ end: UnsafeRawPointer, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard end - p >= count, memcmp(p, word.utf8Start, count) == 0 else { return false }
        p += count
        return true
    }

    /// A number by RFC 8259's grammar; what follows it is checked by the caller.
    @inline(__always)
    private static func number(_ p: inout UnsafeRawPointer, _ end: UnsafeRawPointer) -> Bool {
        @inline(__always) func byte() -> UInt8? { p < end ? p.load(as: UInt8.self) : nil }
        @inline(__always) func isDigit(_ b: UInt8?) -> Bool { b.map { $0 &- UInt8(ascii: "0") < 10 } ?? false }
        @inline(__always) func digits() -> Bool {
            guard isDigit(byte()) else { return false }
            repeat { p += 1 } while isDigit(byte())
            return true
        }
        if byte() == UInt8(ascii: "-") { p += 1 }
        if byte() == UInt8(ascii: "0") {
            p += 1
        } else if !digits() {
            return false
        }
        if byte() == UInt8(ascii: ".") {
            p += 1
            guard digits() else { return false }
        }
        if byte() == UInt8(ascii: "e") || byte() == UInt8(ascii: "E") {
            p += 1
            if byte() == UInt8(ascii: "+") || byte() == UInt8(ascii: "-") { p += 1 }
            guard digits() else { return false }
        }
        return true
    }

    /// The text of a string whose opening quote is before `p`, unescaped; `p` ends after the
    /// closing quote. nil when declined.
    @inline(__always)
    private mutating func string(_ p: inout UnsafeRawPointer, _ end: UnsafeRawPointer) throws -> UnsafeRawBufferPointer? {
        let start = p
        var high: UInt8 = 0
        while p < end {
            let byte = p.load(as: UInt8.self)
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeRawBufferPointer(start: start, count: p - start)
                p += 1
                if high >= 0x80, UTF8Check.firstInvalidIndex(text) != nil { return nil }
                return text
            }
            if byte == UInt8(ascii: "\\") { return escapedString(&p, end, from: start) }
            if byte < 0x20 { return nil }
            high |= byte
            p += 1
        }
        return nil
    }

    /// The rest of a string that holds escapes, unescaped into `scratch`.
    private mutating func escapedString(_ p: inout UnsafeRawPointer, _ end: UnsafeRawPointer,
                                        from start: UnsafeRawPointer) -> UnsafeRawBufferPointer? {
        var count = 0
        var high: UInt8 = 0
        func append(_ byte: UInt8) {
            if count == scratch.count {
                let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: scratch.count * 2, alignment: 8)
                larger.copyMemory(from: UnsafeRawBufferPointer(scratch))
                scratch.deallocate()
                scratch = larger
            }
            scratch[count] = byte
            count += 1
        }
        var q = start
        while q < p {
            let byte = q.load(as: UInt8.self)
            high |= byte
            append(byte)
            q += 1
        }
        while p < end {
            let byte = p.load(as: UInt8.self)
            p += 1
            switch byte {
            case UInt8(ascii: "\""):
                let text = UnsafeRawBufferPointer(start: scratch.baseAddress, count: count)
                if high >= 0x80, UTF8Check.firstInvalidIndex(text) != nil { return nil }
                return text
            case UInt8(ascii: "\\"):
                guard p < end else { return nil }
                let escape = p.load(as: UInt8.self)
                p += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): append(escape)
                case UInt8(ascii: "b"): append(0x08)
                case UInt8(ascii: "f"): append(0x0C)
                case UInt8(ascii: "n"): append(0x0A)
                case UInt8(ascii: "r"): append(0x0D)
                case UInt8(ascii: "t"): append(0x09)
                case UInt8(ascii: "u"):
                    // Surrogates and U+0000 are declined: the parser of the whole file has rules for them.
                    guard end - p >= 4, let scalar = Self.hex4(p), scalar != 0, !(0xD800...0xDFFF).contains(scalar) else {
                        return nil
                    }
                    p += 4
                    // `scalar` is at most 0xFFFF: each byte below fits (no conversion can trap).
                    if scalar < 0x80 {
                        append(UInt8(truncatingIfNeeded: scalar))
                    } else if scalar < 0x800 {
                        append(UInt8(truncatingIfNeeded: 0xC0 | (scalar >> 6)))
                        append(UInt8(truncatingIfNeeded: 0x80 | (scalar & 0x3F)))
                    } else {
                        append(UInt8(truncatingIfNeeded: 0xE0 | (scalar >> 12)))
                        append(UInt8(truncatingIfNeeded: 0x80 | ((scalar >> 6) & 0x3F)))
                        append(UInt8(truncatingIfNeeded: 0x80 | (scalar & 0x3F)))
                    }
                default:
                    return nil
                }
            default:
                if byte < 0x20 { return nil }
                high |= byte
                append(byte)
            }
        }
        return nil
    }

    /// Four hexadecimal digits at `p`.
    private static func hex4(_ p: UnsafeRawPointer) -> UInt32? {
        var value: UInt32 = 0
        for index in 0..<4 {
            guard let digit = HexDigits.value(of: p.load(fromByteOffset: index, as: UInt8.self)) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
