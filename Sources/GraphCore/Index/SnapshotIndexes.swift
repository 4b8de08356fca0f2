/// The fetch indexes of an immutable state of snapshots (a server's read state): for each
/// concrete entity, one persistent index per fetch index the model declares for it (or an
/// ancestor). A value, advanced with the state in O(changed · log n) and sharing everything
/// else with the indexes before; ``SnapshotFetch/indexed(_:included:)`` reads it with the
/// same planner as an ``AtomicStore``.
///
/// ```swift
/// var indexes = SnapshotIndexes(model: model, snapshots: allSnapshots)
/// indexes.apply(old: before, new: after)   // per changed object, nil for inserted / deleted
/// ```
public struct SnapshotIndexes: Sendable {
    private var byEntity: [String: [SnapshotIndex]] = [:]

    /// The indexes of `snapshots` (every object of a store). Inlinable, so that a caller's
    /// walk of its own collection is specialized (a generic walk of a million snapshots
    /// costs a tenth of the build).
    @inlinable
    public init(model: ObjectModel, snapshots: some Sequence<ObjectSnapshot>) {
        let indexed = Self.indexedEntityNames(in: model)
        guard !indexed.isEmpty else {
            self.init(model: model, snapshotsByEntity: [:])
            return
        }
        var grouped: [String: [ObjectSnapshot]] = [:]
        for snapshot in snapshots where indexed.contains(snapshot.objectID.entityName) {
            grouped[snapshot.objectID.entityName, default: []].append(snapshot)
        }
        self.init(model: model, snapshotsByEntity: grouped)
    }

    /// The indexes of every object of a store, given by concrete entity name (entities
    /// without an index may be left out: see ``indexedEntityNames(in:)``). The indexes are
    /// built side by side on the machine's cores.
    public init(model: ObjectModel, snapshotsByEntity grouped: [String: [ObjectSnapshot]]) {
        self.init(model: model) { name in
            let snapshots = grouped[name] ?? []
            return (snapshots.count, { body in for snapshot in snapshots { body(snapshot) } })
        }
    }

    /// The indexes of the objects each concrete entity's `source` gives (how many, and a walk
    /// of them where they are), of the fetch indexes `keeping` keeps (all by default), built
    /// side by side on the machine's cores. An atomic store builds its own from its tables.
    init(model: ObjectModel, keeping: (EntityDescription, IndexDefinition) -> Bool = { _, _ in true },
         source: (String) -> (count: Int, forEach: ((ObjectSnapshot) -> Void) -> Void)) {
        var definitions: [String: [IndexDefinition]] = [:]
        for entity in model.entities where !entity.isAbstract {
            let found = IndexDefinition.all(of: entity).filter { keeping(entity, $0) }
            if !found.isEmpty { definitions[entity.name] = found }
        }
        guard !definitions.isEmpty else { return }
        let jobs = definitions.keys.sorted().flatMap { name in
            let objects = source(name)
            return (definitions[name] ?? []).map { (entity: name, definition: $0, count: objects.count, forEach: objects.forEach) }
        }
        let built = IndexBuildJobs.map(jobs, size: \.count) { SnapshotIndex($0.definition, count: $0.count, forEach: $0.forEach) }
        for (job, index) in zip(jobs, built) { byEntity[job.entity, default: []].append(index) }
    }

    /// No index (a store's tables before its first object, or a server's bounded cache: objects
    /// that are not every object of a store).
    public init() {}

    /// The concrete entities of `model` that have at least one fetch index (their own or an
    /// ancestor's): the ones whose snapshots the indexes need.
    public static func indexedEntityNames(in model: ObjectModel) -> Set<String> {
        Set(model.entities.lazy.filter { !$0.isAbstract && !IndexDefinition.all(of: $0).isEmpty }.map(\.name))
    }

    /// Whether the model declares no index these snapshots keep.
    public var isEmpty: Bool { byEntity.isEmpty }

    /// Takes one object's change: its snapshot before (nil: inserted) and after (nil: deleted).
    public mutating func apply(old: ObjectSnapshot?, new: ObjectSnapshot?) {
        guard let name = (old ?? new)?.objectID.entityName, var indexes = byEntity[name] else { return }
        byEntity[name] = nil  // the arrays uniquely referenced: changed in place
        for position in indexes.indices { indexes[position].apply(old: old, new: new) }
        byEntity[name] = indexes
    }

    /// The indexes of a concrete entity.
    func indexes(ofEntity name: String) -> [SnapshotIndex] {
        byEntity[name] ?? []
    }

    /// Whether a concrete entity has indexes here.
    func hasIndexes(ofEntity name: String) -> Bool {
        byEntity[name] != nil
    }

    /// Takes the indexes of a concrete entity out (none left for it until ``put(_:ofEntity:)``
    /// puts them back): the caller then holds the only reference to each, and its changes
    /// change the trees in place (``IndexUpkeep``).
    mutating func take(ofEntity name: String) -> [SnapshotIndex] {
        byEntity.removeValue(forKey: name) ?? []
    }

    /// Puts the indexes of a concrete entity (in ``indexes(ofEntity:)``'s order) in place.
    mutating func put(_ indexes: [SnapshotIndex], ofEntity name: String) {
        byEntity[name] = indexes.isEmpty ? nil : indexes
    }

    /// The names of the indexes kept for a concrete entity (for tests and diagnostics).
    public func indexNames(ofEntity name: String) -> [String] {
        byEntity[name]?.map(\.definition.name) ?? []
    }
}
