import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// Finds places where a store file in memory can be cut into ranges of objects that other
/// threads parse on their own: the `,` between two objects of an entity's array
/// (`}` `,` `{"ref":`, whitespace allowed between the tokens), and the entity whose array
/// holds them.
///
/// The scan is a guess, made without parsing: in valid JSON a `{` followed by `"ref"` and
/// `:` is never inside a string (the quote would end it), but it can be in some other place
/// than an entity's array. `StoreFileReader` therefore accepts a range only when the
/// parser of the whole file, arriving at the range's `,`, stands between two objects of
/// the same entity; anything else is parsed in place, with the errors of a parse on one thread.
enum StoreFileSplitter {
    /// A place to cut: the offset of the `,` and of the `{` of the next object.
    struct Split {
        let comma: Int
        let start: Int
    }

    /// Up to `count + 1` cuts: one after the first object (so that the parser of the whole
    /// file reads little more than the metadata), `count - 1` at about equal distances in
    /// `bytes` and one near its end (so that little is left to parse after the ranges), in
    /// increasing order.
    static func splits(in bytes: UnsafeRawBufferPointer, count: Int) -> [Split] {
        let size = bytes.count
        guard count > 1, size > 0 else { return [] }
        var targets = (0..<count).map { size / count * $0 }
        targets.append(size - size / (count * 64))
        var splits: [Split] = []
        for (index, target) in targets.enumerated() {
            let from = max(target, (splits.last?.start ?? 0) + 1)
            let limit = index + 1 < targets.count ? targets[index + 1] : size
            guard from < limit, let split = firstSplit(in: bytes, from: from, before: limit) else { continue }
            splits.append(split)
        }
        return splits
    }

    /// The first cut whose `"ref"` starts in `from..<limit`.
    static func firstSplit(in bytes: UnsafeRawBufferPointer, from: Int, before limit: Int) -> Split? {
        guard let base = bytes.baseAddress else { return nil }
        var position = from
        while position < limit {
            guard let found = memchr(base + position, Int32(UInt8(ascii: "\"")), limit - position) else { return nil }
            let key = UnsafeRawPointer(found) - base
            position = key + 1
            guard key + 5 <= bytes.count, UnsafeRawBufferPointer(rebasing: bytes[key..<(key + 5)]).equals("\"ref\""),
                  next(in: bytes, after: key + 4) == UInt8(ascii: ":"),
                  let open = previous(in: bytes, before: key), bytes[open] == UInt8(ascii: "{"),
                  let comma = previous(in: bytes, before: open), bytes[comma] == UInt8(ascii: ","),
                  let close = previous(in: bytes, before: comma), bytes[close] == UInt8(ascii: "}")
            else { continue }
            return Split(comma: comma, start: open)
        }
        return nil
    }

    /// The name of the entity whose array starts last in `lower..<upper`: the key before a
    /// `[` whose first element is an object starting with `"ref"`; nil when there is none.
    static func entityName(in bytes: UnsafeRawBufferPointer, from lower: Int, before upper: Int) -> UnsafeRawBufferPointer? {
        guard let base = bytes.baseAddress else { return nil }
        var end = upper
        while end > lower, let bracket = lastIndex(of: UInt8(ascii: "["), in: base, from: lower, before: end) {
            end = bracket
            guard let open = nextIndex(in: bytes, after: bracket), bytes[open] == UInt8(ascii: "{"),
                  let quote = nextIndex(in: bytes, after: open), quote + 5 <= bytes.count,
                  UnsafeRawBufferPointer(rebasing: bytes[quote..<(quote + 5)]).equals("\"ref\""),
                  let colon = previous(in: bytes, before: bracket), bytes[colon] == UInt8(ascii: ":"),
                  let closing = previous(in: bytes, before: colon), bytes[closing] == UInt8(ascii: "\"")
            else { continue }
            var opening = closing - 1
            while opening >= 0, bytes[opening] != UInt8(ascii: "\"") {
                if bytes[opening] == UInt8(ascii: "\\") { return nil }  // an escaped name: leave it to the parser
                opening -= 1
            }
            guard opening >= 0 else { return nil }
            return UnsafeRawBufferPointer(rebasing: bytes[(opening + 1)..<closing])
        }
        return nil
    }

    /// The index of the last `byte` in `lower..<upper`, eight bytes at a time.
    static func lastIndex(of byte: UInt8, in base: UnsafeRawPointer, from lower: Int, before upper: Int) -> Int? {
        var end = upper
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        while end - 8 >= lower {
            let word = base.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self) ^ pattern
            // A zero byte in `word` is a match; the classic test says whether there is one.
            if (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0 { break }
            end -= 8
        }
        while end > lower {
            end -= 1
            if base.load(fromByteOffset: end, as: UInt8.self) == byte { return end }
        }
        return nil
    }

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The index of the first byte after `index` that is not whitespace.
    private static func nextIndex(in bytes: UnsafeRawBufferPointer, after index: Int) -> Int? {
        var position = index + 1
        while position < bytes.count, isSpace(bytes[position]) { position += 1 }
        return position < bytes.count ? position : nil
    }

    private static func next(in bytes: UnsafeRawBufferPointer, after index: Int) -> UInt8? {
        nextIndex(in: bytes, after: index).map { bytes[$0] }
    }

    /// The index of the last byte before `index` that is not whitespace.
    private static func previous(in bytes: UnsafeRawBufferPointer, before index: Int) -> Int? {
        var position = index - 1
        while position >= 0, isSpace(bytes[position]) { position -= 1 }
        return position >= 0 ? position : nil
    }
}
