/// A growing buffer of bytes that an export's lines are written into, one per thread, kept
/// from one batch of objects to the next (emptied, not freed: no new pages each time).
///
/// Not `Sendable`: one thread writes it at a time.
final class ExportBytes {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// The bytes written.
    private(set) var count = 0

    init(capacity: Int = 1 << 20) {
        self.capacity = max(capacity, 64)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    /// The bytes written so far.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Forgets the bytes, keeping the memory.
    func removeAll() { count = 0 }

    @inline(__always)
    private func reserve(_ more: Int) {
        let needed = count + more
        guard needed > capacity else { return }
        var grown = capacity
        while grown < needed { grown *= 2 }
        let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
        larger.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = larger
        capacity = grown
    }

    @inline(__always)
    func append(_ raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress, raw.count > 0 else { return }
        reserve(raw.count)
        (base + count).copyMemory(from: source, byteCount: raw.count)
        count += raw.count
    }

    @inline(__always)
    func append(_ array: [UInt8]) {
        array.withUnsafeBytes { append($0) }
    }

    /// The decimal digits of `value`.
    @inline(__always)
    func appendInteger(_ value: Int64) {
        reserve(20)
        var magnitude = value.magnitude
        var digits = 0
        var scan = magnitude
        repeat { digits += 1; scan /= 10 } while scan != 0
        let negative = value < 0
        let length = digits + (negative ? 1 : 0)
        let start = base + count
        if negative { start.storeBytes(of: UInt8(ascii: "-"), as: UInt8.self) }
        var index = length
        repeat {
            index -= 1
            start.storeBytes(of: UInt8(truncatingIfNeeded: 48 &+ magnitude % 10), toByteOffset: index, as: UInt8.self)
            magnitude /= 10
        } while magnitude != 0
        count += length
    }

    /// `text` as one JSON string.
    func appendString(_ text: String) {
        var text = text
        text.withUTF8 { appendString(UnsafeRawBufferPointer($0)) }
    }

    /// UTF-8 `bytes` as one JSON string, escaped as yajl's generator escapes them (its
    /// `yajl_string_encode` without the solidus option): `\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
    /// `\t`, any other byte below 0x20 as `\u00XX`; everything else as it is.
    func appendString(_ bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count + 2)
        (base + count).storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
        count += 1
        var plain = 0  // start of the bytes not yet copied
        for index in 0..<bytes.count {
            let byte = bytes[index]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            append(UnsafeRawBufferPointer(rebasing: bytes[plain..<index]))
            appendEscape(byte)
            plain = index + 1
        }
        append(UnsafeRawBufferPointer(rebasing: bytes[plain..<bytes.count]))
        reserve(1)
        (base + count).storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
        count += 1
    }

    private func appendEscape(_ byte: UInt8) {
        let escape: StaticString
        switch byte {
        case 0x22: escape = "\\\""
        case 0x5C: escape = "\\\\"
        case 0x08: escape = "\\b"
        case 0x0C: escape = "\\f"
        case 0x0A: escape = "\\n"
        case 0x0D: escape = "\\r"
        case 0x09: escape = "\\t"
        default:
            let hex = Array("0123456789ABCDEF".utf8)
            append([0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            return
        }
        append(UnsafeRawBufferPointer(start: escape.utf8Start, count: escape.utf8CodeUnitCount))
    }

    /// `text` as one escaped JSON string, in bytes.
    static func escaped(_ text: String) -> [UInt8] {
        let buffer = ExportBytes(capacity: text.utf8.count * 6 + 2)
        buffer.appendString(text)
        return Array(buffer.bytes)
    }
}
