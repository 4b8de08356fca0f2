import GraphCore

/// What a subscription (or a `changes` pull) watches: an entity and its sub-entities (or
/// everything), and for a live query a predicate, judged on each changed object of the
/// entity before and after the commit.
struct FeedFilter: Sendable {
    /// What one commit means for the watcher.
    struct Record {
        var inserted: [ObjectSnapshot] = []
        var updated: [ObjectSnapshot] = []
        var deleted: [ObjectID] = []
        var removed: [ObjectID] = []

        var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && removed.isEmpty }
    }

    /// The entity watched; nil watches all.
    let entity: EntityDescription?
    /// The live query's predicate (requires ``entity``).
    let predicate: GraphCore.Predicate?
    /// Whether objects carry their values.
    let includeValues: Bool

    /// Whether the filter is a live query (its records have `removed`).
    var isLiveQuery: Bool { predicate != nil }

    /// A key for filters that make the same records (nil for live queries, judged one by one).
    var sharingKey: String? {
        predicate == nil ? (entity?.name ?? "") + (includeValues ? "|v" : "|") : nil
    }

    /// What `set` means for this filter; `latest` resolves key paths of a commit read back
    /// from the journal (which keeps no states).
    func record(for set: ChangeSet, latest: ReadState) -> Record {
        var record = Record()
        var before: SnapshotFetch?, after: SnapshotFetch?
        if let predicate, let entity {
            var request = FetchRequest(entityName: entity.name)
            request.predicate = predicate
            let stateBefore = set.stateBefore ?? latest, stateAfter = set.stateAfter ?? latest
            before = try? SnapshotFetch(request, model: latest.model, resolve: { stateBefore.storedSnapshot(of: $0) })
            after = try? SnapshotFetch(request, model: latest.model, resolve: { stateAfter.storedSnapshot(of: $0) })
        }
        for change in set.changes {
            if let entity, !change.id.entity.isKind(of: entity) { continue }
            guard predicate != nil else {
                switch change.kind {
                case .inserted: if let object = set.wireSnapshot(change) { record.inserted.append(object) }
                case .updated: if let object = set.wireSnapshot(change) { record.updated.append(object) }
                case .deleted: record.deleted.append(change.id)
                }
                continue
            }
            // nil: not known (a commit read back from the journal without the object's earlier state).
            let matchedBefore: Bool? = change.before.map { snapshot in (try? before?.matches(snapshot)) == true }
            let matchesAfter = change.after.map { snapshot in (try? after?.matches(snapshot)) == true } ?? false
            switch change.kind {
            case .inserted:
                if matchesAfter, let object = set.wireSnapshot(change) { record.inserted.append(object) }
            case .updated:
                guard let object = set.wireSnapshot(change) else { continue }
                switch (matchedBefore, matchesAfter) {
                case (true?, true): record.updated.append(object)
                case (false?, true): record.inserted.append(object)
                case (nil, true): record.updated.append(object)
                case (true?, false), (nil, false): record.removed.append(change.id)
                case (false?, false): break
                }
            case .deleted:
                if matchedBefore != false { record.deleted.append(change.id) }
            }
        }
        return record
    }
}
