import Foundation

/// The order of a bulk-built index: the positions of its keys sorted by
/// ``IndexKey/order(_:_:)``, ties by the caller's order (a node's identity, a snapshot's
/// reference), found once for every key rather than by inserting one entry at a time.
///
/// Where the keys are nil plus one class of key whose order fits in 128 bits — integers,
/// doubles, dates, or ASCII-led strings (by their first 16 bytes) — the keys are sorted by a
/// radix sort on those bits, and only runs of equal bits are sorted again by the full key
/// and the tie order. Any other mix of keys is sorted by ``IndexKey/order(_:_:)``.
enum IndexBulkOrder {
    /// The positions of `keys` in index order; `tieLess(a, b)` orders two positions whose keys
    /// are equal. `ties`, when given, is that order as numbers (`tieLess(a, b)` exactly when
    /// `ties[a] < ties[b]`): the keys are then taken in that order and the stable radix sort
    /// keeps it among equal keys, so ties need no second sort.
    static func positions(of keys: [IndexKey], ties: [UInt64]? = nil, tieLess: (Int, Int) -> Bool) -> [Int] {
        let visit = ties.map(tieOrder) ?? Array(keys.indices)
        var nulls: [Int] = []
        var nans: [Int] = []
        var items: [RadixItem] = []
        items.reserveCapacity(keys.count)
        var kind: Int?  // the kind of the other keys (see ``RadixItem/kind(of:)``); nil while none is seen
        var isRadixable = true
        var isExact = true  // whether every key's bits are the whole key (equal bits: equal keys)
        for position in visit {
            let key = keys[position]
            switch key {
            case .null: nulls.append(position); continue
            case .nan: nans.append(position); continue
            default: break
            }
            let keyKind = RadixItem.kind(of: key)
            if kind == nil { kind = keyKind } else if kind != keyKind { isRadixable = false }
            guard isRadixable else { continue }
            if let bits = RadixItem.bits(of: key) {
                items.append(RadixItem(high: bits.high, low: bits.low, position: position))
                if !bits.isWhole { isExact = false }
            } else {
                isRadixable = false
            }
        }
        if ties == nil {
            nulls.sort(by: tieLess)
            nans.sort(by: tieLess)
        }
        if isRadixable {
            RadixItem.sort(&items)
            var sorted = items.map(\.position)
            fixRuns(items, &sorted, exact: isExact, inTieOrder: ties != nil, keys: keys, tieLess: tieLess)
            // NaN comes after every number; strings and dates never share an index with it.
            if nulls.isEmpty && nans.isEmpty { return sorted }
            return nulls + sorted + nans
        }
        var others = keys.indices.filter { if case .null = keys[$0] { false } else if case .nan = keys[$0] { false } else { true } }
        others.sort { a, b in
            let byKey = IndexKey.order(keys[a], keys[b])
            return byKey != 0 ? byKey < 0 : tieLess(a, b)
        }
        var ordered = nulls + others
        // NaN sorts between numbers and strings or dates.
        let split = ordered.firstIndex { keys[$0].rank > 2 } ?? ordered.endIndex
        ordered.insert(contentsOf: nans, at: split)
        return ordered
    }

    /// The positions ordered by `ties` (ascending): the positions as they are when they are
    /// already; merged when they are a few ascending runs (the nodes a loader made, on a few
    /// threads, lie in a few increasing runs of addresses); else sorted by a radix sort.
    private static func tieOrder(_ ties: [UInt64]) -> [Int] {
        let descents = zip(ties, ties.dropFirst()).reduce(0) { $0 + ($1.1 < $1.0 ? 1 : 0) }
        if descents == 0 { return Array(ties.indices) }
        if descents < ties.count / 1024 {
            // The standard sort merges ascending runs it finds (a few merges of sequential reads).
            return ties.withUnsafeBufferPointer { tie in ties.indices.sorted { tie[$0] < tie[$1] } }
        }
        var items = ties.enumerated().map { RadixItem(high: $0.element, low: 0, position: $0.offset) }
        RadixItem.sort(&items)
        return items.map(\.position)
    }

    /// Sorts each run of items with equal bits by the full key (strings) and the tie order;
    /// runs already in tie order (`inTieOrder`) only where their keys differ.
    private static func fixRuns(_ items: [RadixItem], _ sorted: inout [Int], exact: Bool, inTieOrder: Bool,
                                keys: [IndexKey], tieLess: (Int, Int) -> Bool) {
        if exact && inTieOrder { return }
        var start = 0
        while start < items.count {
            var end = start + 1
            while end < items.count, items[end].high == items[start].high, items[end].low == items[start].low { end += 1 }
            if end - start > 1 {
                if exact {
                    sorted[start..<end].sort(by: tieLess)
                } else if !inTieOrder || !sameKeys(sorted[start..<end], keys) {
                    sorted[start..<end].sort { a, b in
                        let byKey = IndexKey.order(keys[a], keys[b])
                        return byKey < 0 || (byKey == 0 && tieLess(a, b))
                    }
                }
            }
            start = end
        }
    }
}

extension IndexBulkOrder {
    /// Whether the keys at `positions` are all equal.
    fileprivate static func sameKeys(_ positions: ArraySlice<Int>, _ keys: [IndexKey]) -> Bool {
        guard let first = positions.first else { return false }
        return positions.dropFirst().allSatisfy { IndexKey.order(keys[$0], keys[first]) == 0 }
    }

    /// The positions of compound keys in index order: `columns[e][p]` is element `e`'s key of
    /// position `p`; ties as in ``positions(of:ties:tieLess:)``. One stable pass per element,
    /// from the last to the first (a least-significant-first sort of the tuples).
    static func positions(ofColumns columns: [[IndexKey]], ties: [UInt64]? = nil, tieLess: (Int, Int) -> Bool) -> [Int] {
        guard let last = columns.last else { return [] }
        var order = positions(of: last, ties: ties, tieLess: tieLess)
        for column in columns.dropLast().reversed() {
            var rank = [UInt64](repeating: 0, count: order.count)
            for (place, position) in order.enumerated() { rank[position] = UInt64(place) }
            order = rank.withUnsafeBufferPointer { ranks in
                positions(of: column, ties: rank, tieLess: { ranks[$0] < ranks[$1] })
            }
        }
        return order
    }
}

/// What a radix sort orders: 128 bits, by their unsigned order.
protocol RadixSortable {
    var high: UInt64 { get }
    var low: UInt64 { get }
}

/// A key as 128 bits whose unsigned order is the key's order (equal bits: equal keys, except
/// for strings, whose bits are only their first 16 bytes), and its position.
struct RadixItem: RadixSortable {
    var high: UInt64
    var low: UInt64
    var position: Int

    /// Which of the kinds of key with bits `key` is: keys of one kind only are sorted by bits
    /// (an integer and a double have bits of different meanings).
    static func kind(of key: IndexKey) -> Int {
        switch key {
        case .null: 0
        case .int: 1
        case .double: 2
        case .nan: 3
        case .string: 4
        case .date: 5
        case .object: objectKind
        }
    }

    /// The kind of object keys (their bits are the reference number only: not exact).
    static let objectKind = 6

    /// The bits of a number, a date or a string whose first 17 bytes (or all of it) are ASCII
    /// (so its first 16 bytes are those of the form Swift compares); nil for any other key.
    /// `isWhole` when the bits are the whole key, so that equal bits mean equal keys: numbers,
    /// dates, and strings of at most 16 bytes without NUL (padding holds zeros only); not a
    /// longer string (a prefix) nor an object (its reference number only).
    static func bits(of key: IndexKey) -> (high: UInt64, low: UInt64, isWhole: Bool)? {
        switch key {
        case .int(let i): return (UInt64(bitPattern: i) ^ (1 << 63), 0, true)
        case .double(let d): return Self.bits(of: d).map { ($0, 0, true) }
        case .date(let d): return Self.bits(of: d.timeIntervalSinceReferenceDate).map { ($0, 0, true) }
        case .string(var s): return s.withUTF8 { Self.bits(ofASCII: $0) }
        case .object(let id):
            // A string reference's number is a marker: those are sorted by the full key.
            let number = id.storage.number
            return number == ObjectID.StringStorage.marker ? nil : (UInt64(bitPattern: number) ^ (1 << 63), 0, false)
        default: return nil
        }
    }

    /// The order-keeping bits of a double (-0 as 0); nil for NaN.
    private static func bits(of d: Double) -> UInt64? {
        if d.isNaN { return nil }
        let pattern = (d == 0 ? 0.0 : d).bitPattern
        return pattern & (1 << 63) != 0 ? ~pattern : pattern | (1 << 63)
    }

    /// The first 16 bytes, big-endian and padded with zeros, when they and the byte after
    /// them are ASCII: no later character can change them in the normalized form. Read as two
    /// words, tested for non-ASCII and NUL bytes a word at a time.
    static func bits(ofASCII bytes: UnsafeBufferPointer<UInt8>) -> (high: UInt64, low: UInt64, isWhole: Bool)? {
        var words: (first: UInt64, second: UInt64) = (0, 0)
        let prefix = min(16, bytes.count)
        if let base = bytes.baseAddress {
            withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(start: base, count: prefix)) }
        }
        let first = UInt64(littleEndian: words.first), second = UInt64(littleEndian: words.second)
        if (first | second) & highBits != 0 { return nil }
        if bytes.count > 16, bytes[16] >= 0x80 { return nil }
        let isWhole = bytes.count <= 16 && !holdsZeroByte(first, bytes: min(8, prefix)) && !holdsZeroByte(second, bytes: max(0, prefix - 8))
        return (first.byteSwapped, second.byteSwapped, isWhole)
    }

    private static let lowBits: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether one of the first `count` bytes (0...8, in memory order) of an ASCII word is zero.
    private static func holdsZeroByte(_ word: UInt64, bytes count: Int) -> Bool {
        // The bytes past `count` made nonzero; then the classic test for a zero byte.
        let padding: UInt64 = count >= 8 ? 0 : ~0 << (8 * count)
        let value = word | (padding & lowBits)
        return (value &- lowBits) & ~value & highBits != 0
    }

    /// Sorts `items` by their bits: a stable least-significant-digit radix sort, one pass per
    /// byte in which the items differ (found first by one pass of ORs and ANDs), between the
    /// items and a buffer that is never initialized as a whole.
    static func sort<Item: RadixSortable & BitwiseCopyable>(_ items: inout [Item]) {
        items.withUnsafeMutableBufferPointer { sort($0) }
    }

    /// Sorts the items of a buffer in place, as the sort of an array does.
    static func sort<Item: RadixSortable & BitwiseCopyable>(_ items: UnsafeMutableBufferPointer<Item>) {
        let count = items.count
        guard count > 1 else { return }
        var anyHigh: UInt64 = 0, everyHigh = UInt64.max, anyLow: UInt64 = 0, everyLow = UInt64.max
        for item in items {
            anyHigh |= item.high
            everyHigh &= item.high
            anyLow |= item.low
            everyLow &= item.low
        }
        // Digit d < 8 is byte d of `low`, digit d >= 8 byte d - 8 of `high` (least significant first).
        let digits = (0..<16).filter { digit in
            let differing = digit < 8 ? anyLow ^ everyLow : anyHigh ^ everyHigh
            return (differing >> (8 * (digit % 8))) & 0xFF != 0
        }
        guard !digits.isEmpty else { return }
        var histograms = [Int](repeating: 0, count: digits.count * 256)
        histograms.withUnsafeMutableBufferPointer { counts in
            for item in items {
                for (slot, digit) in digits.enumerated() { counts[slot * 256 + byte(digit, of: item)] += 1 }
            }
        }
        guard let itemsBase = items.baseAddress else { return }
        let scratch = HugePageBuffer<Item>(capacity: count)
        defer { scratch.deallocate() }
        guard let scratchBase = scratch.elements.baseAddress else { return }
        var source = itemsBase, target = scratchBase
        var offsets = [Int](repeating: 0, count: 256)
        for (slot, digit) in digits.enumerated() {
            var total = 0
            for byte in 0..<256 {
                offsets[byte] = total
                total += histograms[slot * 256 + byte]
            }
            offsets.withUnsafeMutableBufferPointer { next in
                for index in 0..<count {
                    let item = source[index]
                    let byte = byte(digit, of: item)
                    (target + next[byte]).initialize(to: item)
                    next[byte] += 1
                }
            }
            swap(&source, &target)
        }
        if source != itemsBase { itemsBase.update(from: source, count: count) }
    }

    @inline(__always)
    private static func byte<Item: RadixSortable>(_ digit: Int, of item: Item) -> Int {
        Int(truncatingIfNeeded: ((digit < 8 ? item.low : item.high) >> (8 * (digit % 8))) & 0xFF)
    }
}
