/// The indexes of an ``AtomicStore``: for each concrete entity, one ``AttributeIndex`` per
/// fetch index the model declares for it (or an ancestor). Built when the store has loaded,
/// rebuilt after nodes were added or removed from outside a save, kept up to date by saves.
struct StoreIndexes {
    private(set) var byEntity: [String: [AttributeIndex]] = [:]
    /// Set when nodes changed outside a save (a loader's ``AtomicStore/addCacheNodes(_:)``):
    /// the next fetch or save rebuilds the indexes first.
    var isStale = true

    /// Builds every index from the nodes (or only those that serve uniqueness checks), in bulk,
    /// independent indexes side by side.
    mutating func rebuild(model: ObjectModel?, nodes: (String) -> IndexedNodes, entityNames: [String], onlyForUniqueness: Bool = false) {
        byEntity = [:]
        isStale = false
        guard let model else { return }
        var jobs: [(entity: String, definition: IndexDefinition, nodes: IndexedNodes)] = []
        for name in entityNames {
            guard let entity = model.entity(named: name) else { continue }
            let definitions = IndexDefinition.all(of: entity).filter { !onlyForUniqueness || $0.servesUniqueness(of: entity) }
            guard !definitions.isEmpty else { continue }
            let entityNodes = nodes(name)
            for (position, definition) in definitions.enumerated() {
                var walked = entityNodes
                walked.backwards = position % 2 == 1
                jobs.append((name, definition, walked))
            }
        }
        let built = IndexBuildJobs.map(jobs, size: \.nodes.count) { AttributeIndex($0.definition, nodes: $0.nodes) }
        for (job, index) in zip(jobs, built) { byEntity[job.entity, default: []].append(index) }
    }

    /// The indexes of a concrete entity.
    func indexes(ofEntity name: String) -> [AttributeIndex] {
        byEntity[name] ?? []
    }

    /// The index of a concrete entity whose first element is the plain attribute `key`.
    func index(ofEntity name: String, firstKey key: String) -> AttributeIndex? {
        byEntity[name]?.first { $0.definition.key == key && $0.definition.folding.isEmpty }
    }

    /// Takes one save into the indexes: inserted nodes, updated nodes with their values
    /// before the save, removed nodes.
    func apply(inserted: [CacheNode], updated: [(node: CacheNode, values: [Value])], removed: [CacheNode]) {
        upkeep(inserted: inserted, updated: updated, removed: removed)?.finish()
    }

    /// One save's changes to the indexes as jobs that may run beside the save's write (see
    /// ``IndexUpkeep``); nil when the save touches no index.
    func upkeep(inserted: [CacheNode], updated: [(node: CacheNode, values: [Value])], removed: [CacheNode]) -> IndexUpkeep? {
        IndexUpkeep(byEntity, inserted: inserted, updated: updated, removed: removed)
    }

    /// Takes back what ``apply(inserted:updated:removed:)`` took in, once the nodes are back as
    /// they were before the save: `updated` holds the values the save had given each node.
    func undo(inserted: [CacheNode], updated: [(node: CacheNode, values: [Value])], removed: [CacheNode]) {
        guard !byEntity.isEmpty else { return }
        for node in removed {
            for index in byEntity[node.objectID.entityName] ?? [] { index.insert(node) }
        }
        for (node, values) in updated {
            for index in byEntity[node.objectID.entityName] ?? [] { index.update(node, from: values) }
        }
        for node in inserted {
            for index in byEntity[node.objectID.entityName] ?? [] { index.remove(node, values: node.values) }
        }
    }
}
