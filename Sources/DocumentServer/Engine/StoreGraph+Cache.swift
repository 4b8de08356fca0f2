import GraphCore

/// The writer's side of a bounded cache (``ServerConfiguration/cacheBytes``, a shared database
/// only): the state holds the objects the cache keeps, not every object. The writer reads what
/// a save needs and the state does not hold from the database (``preload(_:)``,
/// ``loadFromDatabase(_:)``), keeps what readers read after a miss when it is still current
/// (``admit(_:readAt:)``), and lets the oldest objects go once they take more than the budget.
extension StoreGraph {
    /// Whether the state holds only what a bounded cache keeps.
    var isCacheBounded: Bool { budget != nil }

    /// Reads the objects of `ids` the state does not hold from the database, one statement per
    /// table, and keeps them in the writer's state (published with the next state): the objects
    /// a save is about to check and change.
    ///
    /// - Throws: the database's error (the save is answered with it: nothing was checked yet).
    func preload(_ ids: [ObjectID]) throws {
        guard isCacheBounded, let database = store as? any SharedDatabaseStore else { return }
        let missing = ids.filter { $0.storeIdentifier == store.identifier && !$0.isTemporary && state.canonicalSnapshot(of: $0) == nil }
        guard !missing.isEmpty else { return }
        keep(try database.committedSnapshots(of: missing))
    }

    /// One object the state does not hold, read from the database and kept (nil: there is no
    /// such object). A failure is remembered in ``databaseFailure``, for the save under way to
    /// answer instead of taking the object as missing.
    func loadFromDatabase(_ id: ObjectID) -> ObjectSnapshot? {
        guard let database = store as? any SharedDatabaseStore, !id.isTemporary else { return nil }
        do {
            let found = try database.committedSnapshots(of: [id])
            keep(found)
            return found.first
        } catch {
            databaseFailure = error
            return nil
        }
    }

    /// Keeps objects read from the database in the writer's state (not those it holds already:
    /// the state's own are at least as new as its commit).
    func keep(_ snapshots: [ObjectSnapshot]) {
        var fresh: [ObjectSnapshot] = []
        for snapshot in snapshots where state.storedSnapshot(of: snapshot.objectID) == nil {
            fresh.append(snapshot)
            budget?.hold(snapshot)
        }
        if !fresh.isEmpty { state = state.admitting(fresh) }
    }

    /// Keeps the objects readers read from the database, each batch after a state at commit
    /// `readAt` missed them, unless a commit after `readAt` the writer has applied changed them
    /// (what the reader read may be older than that commit: ``RecentChanges``), or the cache is
    /// full and the object had not missed before lately (``AdmissionFilter``); then publishes
    /// once for them all (under load, many batches come in one turn of the writer).
    func admit(_ batches: [(snapshots: [ObjectSnapshot], readAt: Int64)]) {
        // Values, not a copy of the budget: a copy alive while `keep` changes the budget would
        // make it copy its tables (hundreds of thousands of entries) on every call.
        guard var bytes = budget?.bytes, let limit = budget?.limit else { return }
        var current: [ObjectSnapshot] = []
        var declined = 0
        for (snapshots, readAt) in batches {
            for snapshot in snapshots where recentChanges.isCurrent(snapshot.objectID, readAt: readAt) {
                let again = admission?.missedBefore(snapshot.objectID) ?? true
                // Room for it without letting another go, or asked for again lately.
                let size = ObjectBudget.estimatedBytes(of: snapshot)
                if size <= limit - bytes || again {
                    current.append(snapshot)
                    bytes += size
                } else {
                    declined += 1
                }
            }
        }
        EngineMeters.shared.cacheDeclined(declined)
        guard !current.isEmpty else { return }
        keep(current)
        evictOverflow()
        publisher.publish(state)
    }

    /// Notes that readers found `ids` in the cache: the budget keeps them a turn longer.
    func touch(_ ids: [ObjectID]) {
        guard budget != nil else { return }
        for id in ids { budget?.reference(id) }
    }

    /// Notes a commit the state just took: the objects it `changed`, of which the state now holds
    /// `kept` (``RecentChanges``, the budget).
    func noteCommit(_ kept: ReadState.Changes, changed: [ObjectID], advanced: Bool) {
        guard isCacheBounded else { return }
        for (id, snapshot) in kept {
            if let snapshot { budget?.hold(snapshot) } else { budget?.release(id) }
        }
        // A commit published without a number of its own (its number unknown yet) counts as the
        // next one: a reader of the current state may have read its objects before it.
        recentChanges.note(advanced || state.sequence == .max ? state.sequence : state.sequence + 1, changed: changed)
    }

    /// Lets the oldest objects go until the rest fit in the budget (in the writer's state; the
    /// caller publishes it).
    func evictOverflow() {
        guard let leaving = budget?.overflow() else { return }
        EngineMeters.shared.cacheHolds(bytes: budget?.bytes ?? 0, evicted: leaving.count)
        guard !leaving.isEmpty else { return }
        state = state.evicting(leaving)
        cache.remove(leaving)
    }
}
