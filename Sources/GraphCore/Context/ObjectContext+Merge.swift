import Foundation

extension ObjectContext {
    /// Discards every unsaved change: inserted objects leave, deleted ones come back,
    /// changed ones get their committed values again. The undo stack is emptied.
    public func rollback() {
        for object in changeList {
            if object.isInserted {
                registered[object.objectID] = nil
                object._context = nil
            } else if let values = committed[ObjectIdentifier(object)] {
                object.storage = values
            }
        }
        clearChangeState()
        undoStack?.removeAll()
    }

    /// Forgets every object: registered objects leave the context (they can no longer be
    /// used), changes are discarded. Frees the memory a long-lived context gathered.
    public func reset() {
        rollback()
        registered.forEach { $0._context = nil }
        registered.removeAll()
    }

    /// Brings an object up to date with its store (or parent).
    ///
    /// With `mergeChanges` false the object becomes a fault and its unsaved changes are
    /// lost; with true its values are read again and its unsaved changes applied on top.
    /// An inserted object, or one of another context, is left alone.
    ///
    /// - Throws: ``GraphError/objectNotFound(_:)`` when merging and the object is gone from
    ///   the store (or parent); a store's failure to read it.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) throws {
        guard object.context === self, !object.isInserted else { return }
        if !mergeChanges || !object.hasChanges {
            if object.hasChanges { discardChanges(of: object) }
            object.storage = []
            object.flags.insert(.fault)
            if parent == nil { coordinator.objectsDidBecomeFaults([object.objectID]) }
            return
        }
        guard let snapshot = try snapshotFromSource(object.objectID) else {
            throw GraphError.objectNotFound(object.objectID)
        }
        let repairs = merge(object, with: snapshot, localWins: true)
        try repairInverses(repairs)
    }

    /// Takes another context's save into this one: objects it updated are refreshed
    /// (keeping this context's own unsaved changes on top), objects it deleted leave.
    public func mergeChanges(from notification: ContextDidSave) {
        var repairs: [InverseRepair] = []
        var refaulted: [ObjectID] = []
        for id in notification.updated {
            guard let object = registered[id], !object.isFault else { continue }
            if object.hasChanges {
                if let snapshot = try? snapshotFromSource(id) { repairs += merge(object, with: snapshot, localWins: true) }
            } else {
                object.storage = []
                object.flags.insert(.fault)
                refaulted.append(id)
            }
        }
        if parent == nil { coordinator.objectsDidBecomeFaults(refaulted) }
        for id in notification.deleted {
            guard let object = registered.removeValue(forKey: id) else { continue }
            if object.hasChanges { discardChanges(of: object) }
            object._context = nil
        }
        forgetReferences(to: notification.deletedObjectIDs)
        // A store that cannot be read now leaves the inverse as it is; the save will tell.
        try? repairInverses(repairs)
    }

    /// Takes objects deleted elsewhere out of this context's unsaved relationship values (the
    /// store nullified what it holds; what only this context holds would otherwise be saved
    /// pointing at objects that no longer exist).
    private func forgetReferences(to deleted: Set<ObjectID>) {
        guard !deleted.isEmpty else { return }
        for object in changeList where object.hasChanges && !object.isDeleted && !object.isFault && object.context === self {
            for index in object.entity.relationshipIndices {
                switch object.storage[index] {
                case .object(let id) where deleted.contains(id):
                    removeOneSide(object, index, id)
                case .objects(let ids) where ids.contains(where: deleted.contains):
                    for id in ids where deleted.contains(id) { removeOneSide(object, index, id) }
                default:
                    break
                }
            }
        }
    }

    /// Resolves conflicts of a failed save by the merge policy, so the save can be retried.
    func resolve(_ conflicts: [Conflict]) throws {
        var repairs: [InverseRepair] = []
        for conflict in conflicts {
            guard let object = registered[conflict.objectID] else { throw GraphError.conflict(conflicts) }
            guard let snapshot = try snapshotFromSource(conflict.objectID) else {
                // Deleted in the store: a deletion here is already satisfied; anything else cannot merge.
                guard object.isDeleted else { throw GraphError.conflict(conflicts) }
                discardChanges(of: object)
                registered[object.objectID] = nil
                object._context = nil
                continue
            }
            repairs += merge(object, with: snapshot, localWins: mergePolicy != .storeTrumps)
        }
        try repairInverses(repairs)
    }

    /// Property by property: where only one side changed a value, that change is kept;
    /// where both did, `localWins` decides, except that a to-many list both sides changed gets
    /// both sides' additions and removals (so no inverse is left dangling). The object then
    /// counts as read at the store's version.
    ///
    /// - Returns: the inverses to mend once every object is merged: where both sides changed
    ///   a to-one relationship, the object the losing side pointed at still points back.
    private func merge(_ object: ManagedObject, with snapshot: ObjectSnapshot, localWins: Bool) -> [InverseRepair] {
        let base = committedStorage(of: object)
        var merged = object.storage
        var repairs: [InverseRepair] = []
        let inverseIndices = object.entity.inverseIndices
        for index in merged.indices {
            let (local, store, original) = (merged[index], snapshot.values[index], base[index])
            guard store != original else { continue }          // the store did not change it
            if local == original || local == store {          // only the store changed it (or both alike)
                merged[index] = store
                continue
            }
            if case .objects(let mine) = local, case .objects(let theirs) = store, case .objects(let before) = original {
                merged[index] = .objects(Self.mergedList(mine: mine, theirs: theirs, base: before))
                continue
            }
            if !localWins { merged[index] = store }
            guard index < inverseIndices.count, inverseIndices[index] != nil,
                  case .object(let stale) = localWins ? store : local
            else { continue }
            repairs.append(InverseRepair(object: object, index: index, stale: stale, readFromStore: localWins))
        }
        if object.hasChanges { committed[ObjectIdentifier(object)] = snapshot.values }
        object.storage = merged
        object.version = snapshot.version
        return repairs
    }

    /// A list both sides changed: the other side's list, without what `mine` removed from
    /// `base`, then what `mine` added (in its order).
    static func mergedList(mine: [ObjectID], theirs: [ObjectID], base: [ObjectID]) -> [ObjectID] {
        let baseSet = Set(base)
        let removed = baseSet.subtracting(mine)
        var merged = theirs.filter { !removed.contains($0) }
        var present = Set(merged)
        for id in mine where !baseSet.contains(id) && present.insert(id).inserted {
            merged.append(id)
        }
        return merged
    }

    /// The object a to-one relationship stopped pointing at in a merge, which still points back.
    struct InverseRepair {
        let object: ManagedObject
        let index: Int
        let stale: ObjectID
        /// The stale side is what the store holds (read it afresh before mending it).
        let readFromStore: Bool
    }

    /// Takes each merged object out of the inverse of the object it no longer points at.
    private func repairInverses(_ repairs: [InverseRepair]) throws {
        for repair in repairs {
            let object = repair.object
            guard object.context === self, !object.isDeleted, !object.isFault,
                  object.storage[repair.index] != .object(repair.stale),
                  let inverseIndex = object.entity.inverseIndices[repair.index]
            else { continue }
            if repair.readFromStore, let known = registered[repair.stale], !known.hasChanges, !known.isFault {
                known.storage = []
                known.flags.insert(.fault)
            }
            let target: ManagedObject
            do { target = try existingObject(with: repair.stale) } catch GraphError.objectNotFound { continue }
            if target.isDeleted { continue }
            removeOneSide(target, inverseIndex, object.objectID)
        }
    }

    /// Drops one object's unsaved changes (values back to committed, off the change list).
    private func discardChanges(of object: ManagedObject) {
        if let values = committed.removeValue(forKey: ObjectIdentifier(object)) { object.storage = values }
        object.flags.subtract([.updated, .deleted])
        if object.isInserted {
            object.flags.remove(.inserted)
            registered[object.objectID] = nil
            object._context = nil
        }
    }
}
