import GraphCore

extension ReadState {
    /// Clears, in this state, the references that the commit's deletions left pointing at
    /// deleted objects (relationships without an inverse, or whose inverse is `noAction`,
    /// ``DanglingReferences``), and those a changed object brought back from the store.
    ///
    /// The store never writes such a reference (a restarted server reads it as cleared), so
    /// the state holds it cleared too: a fetch's predicate and the indexes see what a
    /// restarted server sees. The objects keep their versions: the deletion did not change
    /// them, and they are not part of the commit's change set.
    ///
    /// The holders are found through the deleted objects' `noAction` inverses; a relationship
    /// without an inverse means reading all objects of the entities that have one.
    mutating func clearDanglingReferences(changes: Changes, deleted: [ObjectSnapshot]) {
        var candidates: [ObjectID] = []
        for (id, snapshot) in changes where snapshot != nil && dangling.mayHold(entity: id.entityName) { candidates.append(id) }
        var scanned = Set<String>()
        for old in deleted {
            candidates += dangling.listedHolders(of: old)
            scanned.formUnion(dangling.scannedHolders(ofEntity: old.objectID.entityName))
        }
        for id in candidates {
            guard let stored = storedSnapshot(of: id) else { continue }
            replace(stored, with: dangling.cleared(stored) { self.exists($0) })
        }
        guard !scanned.isEmpty else { return }
        let gone = Set(deleted.map(\.objectID))
        for name in scanned {
            for stored in objects(ofEntity: name) {
                replace(stored, with: dangling.cleared(stored) { !gone.contains($0) })
            }
        }
    }

    /// In a state of a bounded cache: clears the references its objects hold to the `deleted`
    /// objects (the database cleared them in its rows; an object the state does not hold may
    /// exist, so only these are known to be gone). Every object of the entities that may hold
    /// such a reference is read: the cache's, not the store's.
    mutating func clearReferences(to deleted: Set<ObjectID>) {
        guard !deleted.isEmpty else { return }
        let holders = dangling.holders(ofDeleted: deleted)
        for entity in model.entities where !entity.isAbstract && holders.contains(where: { name in model.entity(named: name).map(entity.isKind(of:)) ?? false }) {
            for stored in objects(ofEntity: entity.name) {
                replace(stored, with: dangling.cleared(stored) { !deleted.contains($0) })
            }
        }
    }

    /// Puts `new` in the place of `old` (the same object) when it differs.
    private mutating func replace(_ old: ObjectSnapshot, with new: ObjectSnapshot) {
        guard new.values != old.values else { return }
        replaceStored(old, with: new)
    }
}
