import Foundation
import GraphCore

/// Adds loaded nodes to their store on another thread (`AtomicStore.addCacheNodes`), in
/// batches handed over in the decoder's order while the file is still being parsed and
/// joined, and while the loading thread resolves their relationships.
///
/// The first batch empties the store's tables first. If the decoder's nodes turn out not to
/// begin with the batches (the journal's replay or a late store identifier changed them),
/// ``finish(with:)`` adds them all again.
final class NodeAdding: @unchecked Sendable {
    // Sendable: `add` and `finish` are called by one thread at a time (the joining thread,
    // then, after it is done, the loading thread); the batches run one after another on
    // `queue`. Between the first batch and `wait()` the store's node tables are touched only
    // by `queue` (the loading threads make IDs and write the nodes' `values`, which adding
    // never reads: it reads their `objectID`s, which never change).
    private let store: AtomicStore
    private let queue = DispatchQueue(label: "JSONAtomicStore.NodeAdding")
    private let group = DispatchGroup()
    /// What was handed over, in order.
    private var batches: [[CacheNode]] = []
    /// How many nodes were handed over.
    private(set) var handed = 0

    /// Adds nothing until nodes are handed over.
    init(store: AtomicStore) {
        self.store = store
    }

    /// A batch as the queue takes it.
    private struct Batch: @unchecked Sendable {
        // Sendable: the nodes are only read (their IDs) on the queue; see the class.
        let nodes: [CacheNode]
    }

    /// Hands over `nodes`, which follow those handed before in the decoder's order. With the
    /// first batch, `expected` (an estimate of how many nodes of its first node's entity are
    /// coming) makes the store's table that large at once.
    func add(_ nodes: [CacheNode], expecting expected: Int? = nil) {
        guard !nodes.isEmpty else { return }
        let first = handed == 0
        handed += nodes.count
        batches.append(nodes)
        let batch = Batch(nodes: nodes), store = self.store
        let reserve = first ? expected.flatMap { count in nodes.first.map { ($0.objectID.entityName, count) } } : nil
        queue.async(group: group) {
            if first { store.removeAllCacheNodes() }
            if let (entity, count) = reserve { store.reserveCacheNodes(count, ofEntity: entity) }
            store.addCacheNodes(batch.nodes)
        }
    }

    /// Hands over the nodes of `all` (the decoder's) past those handed before.
    func addRest(of all: [CacheNode], expecting expected: Int? = nil) {
        if all.count > handed { add(Array(all[handed...]), expecting: expected) }
    }

    /// Hands over the rest of `all`, the decoder's final nodes; when the batches handed
    /// before are not its start, node for node, the store's tables are made again from `all`.
    func finish(with all: [CacheNode]) {
        var offset = 0
        var same = all.count >= handed
        for batch in batches where same {
            for (index, node) in batch.enumerated() where all[offset + index] !== node {
                same = false
                break
            }
            offset += batch.count
        }
        if same {
            addRest(of: all)
        } else {
            wait()
            handed = 0
            batches = []
            add(all)
        }
        if handed == 0 { store.removeAllCacheNodes() }
    }

    /// Waits until every node handed over is added.
    func wait() { group.wait() }

    /// Waits, then empties the store's tables if anything was added (after a failed load).
    func undo() {
        wait()
        if handed > 0 { store.removeAllCacheNodes() }
    }
}
