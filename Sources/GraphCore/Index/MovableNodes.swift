/// Nodes held strongly in one buffer, appended in one order and moved out in another without
/// touching their reference counts: an index's bulk build retains each node once while its
/// memory is at hand (in the order it reads the nodes), and hands that reference to the entry
/// in key order, where touching a million nodes at random would cost a cache miss each (and,
/// with indexes built side by side, a contended cache line).
///
/// Every slot is moved out at most once (``take(_:)`` checks it); what is never moved out is
/// released with the buffer.
final class MovableNodes {
    private var buffer: UnsafeMutableBufferPointer<CacheNode>
    /// Slots `0..<count` were initialized; `taken[p]` once slot `p` was moved out.
    private(set) var count = 0
    private var taken: [Bool] = []

    init(capacity: Int) {
        buffer = .allocate(capacity: max(1, capacity))
    }

    deinit {
        if let base = buffer.baseAddress {
            for position in 0..<count where taken.isEmpty || !taken[position] { (base + position).deinitialize(count: 1) }
        }
        buffer.deallocate()
    }

    /// Appends a strong reference to `node`; ignored once a node was moved out.
    func append(_ node: CacheNode) {
        guard taken.isEmpty else { return }
        reserve(count + 1)
        buffer.baseAddress.map { ($0 + count).initialize(to: node) }
        count += 1
    }

    /// Moves every node of `other` to the end of this buffer; `other` is left empty. Ignored
    /// once a node was moved out of either.
    func append(movingFrom other: MovableNodes) {
        guard other.count > 0, taken.isEmpty, other.taken.isEmpty,
              let source = other.buffer.baseAddress else { return }
        reserve(count + other.count)
        buffer.baseAddress.map { ($0 + count).moveInitialize(from: source, count: other.count) }
        count += other.count
        other.count = 0
    }

    /// The node at `position`, moved out (the buffer no longer holds it); nil when the position
    /// is out of range or was moved out before.
    func take(_ position: Int) -> CacheNode? {
        if taken.isEmpty { taken = Array(repeating: false, count: count) }
        guard position >= 0, position < count, !taken[position], let base = buffer.baseAddress else { return nil }
        taken[position] = true
        return (base + position).move()
    }

    private func reserve(_ needed: Int) {
        guard needed > buffer.count, taken.isEmpty else { return }
        let grown = UnsafeMutableBufferPointer<CacheNode>.allocate(capacity: Swift.max(needed, buffer.count * 2))
        if let base = grown.baseAddress, let old = buffer.baseAddress { base.moveInitialize(from: old, count: count) }
        buffer.deallocate()
        buffer = grown
    }
}
