/// The bulk build of a one-element index whose keys are all integers, or all strings of at
/// most 16 ASCII bytes without NUL, besides nil (and NaN among integers): keys whose radix bits
/// are the whole key (``RadixItem/bits(of:)``), of objects whose references are integers.
///
/// The radix sort then carries each entry's reference with its bits, and the leaves are filled
/// in order from the sorted items alone, each key made again from its bits. The general build
/// (``IndexBulkOrder``) sorts positions and then gathers each key and reference from arrays in
/// the snapshots' order: two reads at random per entry, most of them cache misses on a large
/// store, and two more arrays as large as the index to fill first.
///
/// Entries of equal keys are in reference order, as in every index: the radix sort is stable,
/// so when the snapshots come in reference order (a store's table of dense references) the
/// runs of equal bits are in order already; otherwise each run is sorted by reference.
enum IndexExactBuild {
    struct Built {
        let tree: SnapshotIndexTree
        let nanCount: Int
        let unindexedCount: Int
    }

    /// A key's bits and the integer reference of its object.
    private struct ReferenceItem: RadixSortable {
        let high: UInt64
        let low: UInt64
        let reference: Int64
    }

    /// The kinds of key whose bits this build turns back into keys.
    private enum Kind { case int, string }

    /// The index of `definition` over the `count` snapshots `forEach` walks, or nil when it has
    /// more than one element, a key that is not exact or an object with a string reference
    /// (then the caller builds it the general way; nothing is kept).
    static func build(_ definition: IndexDefinition, count: Int, forEach: ((ObjectSnapshot) -> Void) -> Void) -> Built? {
        guard definition.elements.count == 1, let element = definition.elements.first else { return nil }
        let buffer = HugePageBuffer<ReferenceItem>(capacity: count)
        defer { buffer.deallocate() }
        var itemCount = 0
        var nulls: [Int64] = []
        var nans: [Int64] = []
        var unindexed = 0
        var kind: Kind?
        var isExact = true
        var inOrder = true  // whether the references came in increasing order
        var lastReference = Int64.min
        forEach { snapshot in
            guard isExact else { return }
            guard case .int(let reference) = snapshot.objectID.referenceObject else {
                isExact = false
                return
            }
            guard let key = element.key(in: snapshot.values) else {
                unindexed += 1
                return
            }
            if reference < lastReference { inOrder = false }
            lastReference = reference
            let keyKind: Kind
            switch key {
            case .null:
                nulls.append(reference)
                return
            case .nan:
                nans.append(reference)
                return
            case .int: keyKind = .int
            case .string: keyKind = .string
            default:
                isExact = false
                return
            }
            guard kind == nil || kind == keyKind, let bits = RadixItem.bits(of: key), bits.isWhole else {
                isExact = false
                return
            }
            kind = keyKind
            guard itemCount < buffer.elements.count, let base = buffer.elements.baseAddress else {
                isExact = false  // more snapshots than counted
                return
            }
            (base + itemCount).initialize(to: ReferenceItem(high: bits.high, low: bits.low, reference: reference))
            itemCount += 1
        }
        let items = UnsafeMutableBufferPointer(rebasing: buffer.elements[0..<itemCount])
        // NaN sorts between numbers and strings: only an index of numbers takes it after them.
        if kind == .string && !nans.isEmpty { isExact = false }
        guard isExact else { return nil }
        RadixItem.sort(items)
        if !inOrder {
            orderTies(items)
            nulls.sort()
            nans.sort()
        }
        // Constants from here: the fill's closure reads them without exclusivity checks.
        let sorted = UnsafeBufferPointer(items), nullReferences = nulls, nanReferences = nans, isInteger = kind == .int
        let sortedEnd = nullReferences.count + sorted.count
        let tree = SnapshotIndexTree(count: sortedEnd + nanReferences.count) { place in
            if place < nullReferences.count {
                return SnapshotIndexEntry(key: .null, rest: [], reference: .int(nullReferences[place]))
            }
            if place >= sortedEnd {
                return SnapshotIndexEntry(key: .nan, rest: [], reference: .int(nanReferences[place - sortedEnd]))
            }
            let item = sorted[place - nullReferences.count]
            let key: IndexKey = isInteger ? .int(Int64(bitPattern: item.high ^ (1 << 63))) : .string(string(item))
            return SnapshotIndexEntry(key: key, rest: [], reference: .int(item.reference))
        }
        return Built(tree: tree, nanCount: nanReferences.count, unindexedCount: unindexed)
    }

    /// Orders each run of items with equal bits (equal keys) by reference.
    private static func orderTies(_ items: UnsafeMutableBufferPointer<ReferenceItem>) {
        var start = 0
        while start < items.count {
            var end = start + 1
            while end < items.count, items[end].high == items[start].high, items[end].low == items[start].low { end += 1 }
            if end - start > 1 {
                var run = UnsafeMutableBufferPointer(rebasing: items[start..<end])
                run.sort { $0.reference < $1.reference }
            }
            start = end
        }
    }

    /// The string whose bytes the item's bits are: at most 16 ASCII bytes, zeros after them.
    private static func string(_ item: ReferenceItem) -> String {
        var bytes = (item.high.bigEndian, item.low.bigEndian)
        return withUnsafeBytes(of: &bytes) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
