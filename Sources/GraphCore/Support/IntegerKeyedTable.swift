/// A table keyed by `Int64` that stores dense keys in an array and the rest in a dictionary.
///
/// Stores hand out references in sequence (1, 2, 3, ...), so the keys of one store are
/// nearly always dense: an array slot per key costs 8 bytes and no hashing, where a
/// dictionary bucket costs about 34 bytes at Swift's load factor and a cache miss per probe.
/// A key that would leave the array less than half full goes to the dictionary instead.
struct IntegerKeyedTable<Element> {
    /// `slots[i]` holds the element of key `base + i`.
    private var base: Int64 = 0
    private(set) var slots: [Element?] = []
    private var denseCount = 0
    private var sparse: [Int64: Element] = [:]

    init() {}

    var count: Int { denseCount + sparse.count }

    private func slotIndex(_ key: Int64) -> Int? {
        guard !slots.isEmpty, key >= base else { return nil }
        let (offset, overflow) = key.subtractingReportingOverflow(base)
        guard !overflow, offset < Int64(slots.count) else { return nil }
        return Int(offset)
    }

    subscript(key: Int64) -> Element? {
        get {
            if let index = slotIndex(key), let element = slots[index] { return element }
            return sparse.isEmpty ? nil : sparse[key]
        }
        set {
            if let index = slotIndex(key) {
                // A key that went to the dictionary before the array reached it moves here.
                if !sparse.isEmpty { sparse[key] = nil }
                switch (slots[index] == nil, newValue == nil) {
                case (true, false): denseCount += 1
                case (false, true): denseCount -= 1
                default: break
                }
                slots[index] = newValue
                return
            }
            guard let newValue else {
                sparse[key] = nil
                return
            }
            if slots.isEmpty, sparse[key] == nil {
                base = key
                slots.append(newValue)
                denseCount = 1
                return
            }
            // Grow the array to reach the key if it stays at least half full.
            if key >= base, sparse[key] == nil {
                let (offset, overflow) = key.subtractingReportingOverflow(base)
                if !overflow, offset < Int64(Int32.max), Int(offset) + 1 <= 2 * (denseCount + 1) + 16 {
                    slots.append(contentsOf: repeatElement(nil, count: Int(offset) - slots.count + 1))
                    slots[Int(offset)] = newValue
                    denseCount += 1
                    return
                }
            }
            sparse[key] = newValue
        }
    }

    @discardableResult
    mutating func removeValue(forKey key: Int64) -> Element? {
        let old = self[key]
        self[key] = nil
        return old
    }

    /// Makes room for `count` more elements whose keys follow `key` (the first of them).
    mutating func reserveCapacity(_ count: Int, startingAt key: Int64) {
        if slots.isEmpty, sparse.isEmpty { base = key }
        let (offset, overflow) = key.subtractingReportingOverflow(base)
        if key >= base, !overflow, offset < Int64(Int32.max) {
            // Geometric growth: a save that adds a few keys must not copy every slot.
            let needed = max(slots.count, Int(offset)) + count
            if needed > slots.capacity { slots.reserveCapacity(max(needed, slots.capacity * 2)) }
        } else {
            sparse.reserveCapacity(sparse.count + count)
        }
    }

    /// Calls `body` with every element: dense keys in increasing order, then the others;
    /// `backwards`, in the opposite order.
    func forEach(backwards: Bool = false, _ body: (Element) throws -> Void) rethrows {
        if backwards {
            for element in sparse.values.reversed() { try body(element) }
            for slot in slots.reversed() { if let element = slot { try body(element) } }
        } else {
            for slot in slots { if let element = slot { try body(element) } }
            for element in sparse.values { try body(element) }
        }
    }
}
