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
    /// What the subscriber's user may read (nil: everything): an object it may not read is
    /// never sent, nor its ID; one that stops being readable comes as `removed`
    /// (`docs/SECURITY.md`, Live changes).
    var readAccess: ReadAccess?

    /// Whether the filter is a live query (its records have `removed`).
    /// A subscription of a user with rules also gets `removed` (objects it may no longer read).
    var isLiveQuery: Bool { predicate != nil || readAccess != nil }

    /// Filters with equal keys make the same records: the feed judges and encodes a commit
    /// once for all of them.
    struct Key: Hashable {
        let entity: String?
        let predicate: GraphCore.Predicate?
        let includeValues: Bool
        let readAccess: ReadAccess?
    }

    var key: Key { Key(entity: entity?.name, predicate: predicate, includeValues: includeValues, readAccess: readAccess) }

    /// Filters with equal judgement keys make the same records, with values or without: the
    /// feed judges a commit once for all of them (a live query's predicate runs once per
    /// commit, whatever the number of kinds that share it).
    struct JudgementKey: Hashable {
        let entity: String?
        let predicate: GraphCore.Predicate?
        let readAccess: ReadAccess?
    }

    var judgementKey: JudgementKey { JudgementKey(entity: entity?.name, predicate: predicate, readAccess: readAccess) }

    /// A live query's predicate ran past its time limit on one commit.
    struct TooSlow: Error {}

    /// What `set` means for this filter; `latest` resolves key paths of a commit read back
    /// from the journal (which keeps no states). A live query's judgement of the commit may
    /// take `timeLimit` (nil: no limit); past it, ``TooSlow`` is thrown.
    func record(for set: ChangeSet, latest: ReadState, timeLimit: Duration? = nil) throws(TooSlow) -> Record {
        var record = Record()
        // The predicate is prepared only for a commit that changed an object of the entity.
        var prepared = false
        var before: SnapshotFetch?, after: SnapshotFetch?
        var rulesBefore: RowRules?, rulesAfter: RowRules?
        for change in set.changes {
            if let entity, !change.id.entity.isKind(of: entity) { continue }
            if let readAccess {
                let access = readAccess.access(change.id.entity)
                if access == .none { continue }
                if access != .all {
                    let stateBefore = set.stateBefore ?? latest, stateAfter = set.stateAfter ?? latest
                    if rulesBefore == nil {
                        rulesBefore = RowRules(model: latest.model, resolve: { stateBefore.storedSnapshot(of: $0) })
                        rulesAfter = RowRules(model: latest.model, resolve: { stateAfter.storedSnapshot(of: $0) })
                    }
                    // nil: not known (a commit read back from the journal): never taken as readable.
                    let readableBefore = change.before.map { rulesBefore?.permits(access, $0) ?? false }
                    let readableAfter = change.after.map { rulesAfter?.permits(access, $0) ?? false } ?? false
                    switch change.kind {
                    case .inserted:
                        if !readableAfter { continue }
                    case .updated:
                        if !readableAfter {
                            if readableBefore == true { record.removed.append(change.id) }
                            continue
                        }
                    case .deleted:
                        if readableBefore != true { continue }
                    }
                }
            }
            if let predicate, let entity, !prepared {
                prepared = true
                var request = FetchRequest(entityName: entity.name)
                request.predicate = predicate
                request.deadline = timeLimit.map { ContinuousClock.now + $0 }
                let stateBefore = set.stateBefore ?? latest, stateAfter = set.stateAfter ?? latest
                before = try? SnapshotFetch(request, model: latest.model, resolve: { stateBefore.storedSnapshot(of: $0) })
                after = try? SnapshotFetch(request, model: latest.model, resolve: { stateAfter.storedSnapshot(of: $0) })
            }
            guard predicate != nil else {
                switch change.kind {
                case .inserted: if let object = set.wireSnapshot(change) { record.inserted.append(object) }
                case .updated: if let object = set.wireSnapshot(change) { record.updated.append(object) }
                case .deleted: record.deleted.append(change.id)
                }
                continue
            }
            // nil: not known (a commit read back from the journal without the object's earlier state).
            let matchedBefore: Bool? = try change.before.map { snapshot throws(TooSlow) in try Self.matches(before, snapshot) }
            let matchesAfter = try change.after.map { snapshot throws(TooSlow) in try Self.matches(after, snapshot) } ?? false
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

    /// Whether `snapshot` satisfies the prepared predicate; one that cannot be judged (a value
    /// of another type than the predicate expects) does not.
    private static func matches(_ fetch: SnapshotFetch?, _ snapshot: ObjectSnapshot) throws(TooSlow) -> Bool {
        guard let fetch else { return false }
        do {
            return try fetch.matches(snapshot)
        } catch GraphError.timeLimitExceeded {
            throw TooSlow()
        } catch {
            return false
        }
    }
}
