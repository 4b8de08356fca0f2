import Foundation
import GraphCore

/// Adds loaded nodes to their store on another thread (`AtomicStore.addCacheNodes`), while
/// the loading thread resolves their relationships.
final class NodeAdding: @unchecked Sendable {
    // Sendable: between `init` and `wait()` the store's node tables are touched only by the
    // adding thread (the loading thread works on the decoder's arrays and writes the nodes'
    // `values`, which adding never reads: it reads their `objectID`s, which never change).
    private let store: AtomicStore
    private let nodes: [CacheNode]
    private let group = DispatchGroup()

    /// Starts adding `nodes` to `store`.
    init(store: AtomicStore, nodes: [CacheNode]) {
        self.store = store
        self.nodes = nodes
        DispatchQueue.global().async(group: group) { [self] in
            self.store.addCacheNodes(self.nodes)
        }
    }

    /// Waits until every node is added.
    func wait() { group.wait() }
}
