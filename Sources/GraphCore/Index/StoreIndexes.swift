/// The indexes of an ``AtomicStore``: the same persistent ``SnapshotIndexes`` a server's read
/// state keeps, over the store's snapshots (for each concrete entity, one ``SnapshotIndex``
/// per fetch index the model declares for it or an ancestor). Built when the store has loaded,
/// rebuilt after objects were added or removed from outside a save, kept up to date by saves.
struct StoreIndexes {
    private(set) var all = SnapshotIndexes()
    /// Set when objects changed outside a save (a loader's ``AtomicStore/addCacheNodes(_:)``):
    /// the next fetch or save rebuilds the indexes first.
    var isStale = true

    /// Builds every index from the store's tables (or only those that serve uniqueness
    /// checks), in bulk, independent indexes side by side.
    mutating func rebuild(model: ObjectModel?, tables: [String: ObjectIDTable<ObjectSnapshot>], onlyForUniqueness: Bool = false) {
        all = SnapshotIndexes()
        isStale = false
        guard let model else { return }
        all = SnapshotIndexes(model: model, keeping: { entity, definition in
            !onlyForUniqueness || definition.servesUniqueness(of: entity)
        }, source: { name in
            guard let table = tables[name] else { return (0, { _ in }) }
            return (table.count, { body in table.forEach(body) })
        })
    }

    /// The indexes of a concrete entity.
    func indexes(ofEntity name: String) -> [SnapshotIndex] {
        all.indexes(ofEntity: name)
    }

    /// The index of a concrete entity whose first element is the plain attribute `key`.
    func index(ofEntity name: String, firstKey key: String) -> SnapshotIndex? {
        all.indexes(ofEntity: name).first { $0.definition.key == key && $0.definition.folding.isEmpty }
    }

    /// Takes one save into the indexes: inserted snapshots, updated ones before and after the
    /// save, removed ones.
    mutating func apply(inserted: [ObjectSnapshot], updated: [(old: ObjectSnapshot, new: ObjectSnapshot)], removed: [ObjectSnapshot]) {
        guard let upkeep = upkeep(inserted: inserted, updated: updated, removed: removed) else { return }
        upkeep.finish()
        take(upkeep)
    }

    /// One save's changes to the indexes as jobs that may run beside the save's write (see
    /// ``IndexUpkeep``); nil when the save touches no index. The upkeep takes the indexes it
    /// changes out of these until ``take(_:)`` (the write succeeded) or ``restore(_:)`` (it
    /// failed) puts them back: no fetch may read them meanwhile.
    mutating func upkeep(inserted: [ObjectSnapshot], updated: [(old: ObjectSnapshot, new: ObjectSnapshot)], removed: [ObjectSnapshot]) -> IndexUpkeep? {
        IndexUpkeep(taking: &all, inserted: inserted, updated: updated, removed: removed)
    }

    /// Puts back the indexes of an upkeep, with its save, once it finished.
    mutating func take(_ upkeep: IndexUpkeep) {
        upkeep.finish()
        upkeep.giveBack(into: &all)
    }

    /// Puts back the indexes of an upkeep whose save's write failed, without the save: they
    /// hold the entries they held before it.
    mutating func restore(_ upkeep: IndexUpkeep) {
        upkeep.finish()
        upkeep.undo()
        upkeep.giveBack(into: &all)
    }
}
