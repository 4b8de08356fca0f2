import Foundation

extension ObjectContext {
    /// Discards every unsaved change: inserted objects leave, deleted ones come back,
    /// changed ones get their committed values again. The undo stack is emptied.
    public func rollback() {
        for object in changeList {
            if object.isInserted {
                registered[object.objectID] = nil
                object.context = nil
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
        for object in registered.values { object.context = nil }
        registered.removeAll()
    }

    /// Brings an object up to date with its store (or parent).
    ///
    /// With `mergeChanges` false the object becomes a fault and its unsaved changes are
    /// lost; with true its values are read again and its unsaved changes applied on top.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) throws {
        guard object.context === self, !object.isInserted else { return }
        if !mergeChanges || !object.hasChanges {
            if object.hasChanges { discardChanges(of: object) }
            object.storage = []
            object.flags.insert(.fault)
            return
        }
        guard let snapshot = try snapshotFromSource(object.objectID) else {
            throw GraphError.objectNotFound(object.objectID)
        }
        merge(object, with: snapshot, localWins: true)
    }

    /// Takes another context's save into this one: objects it updated are refreshed
    /// (keeping this context's own unsaved changes on top), objects it deleted leave.
    public func mergeChanges(from notification: ContextDidSave) {
        for id in notification.updatedObjectIDs {
            guard let object = registered[id], !object.isFault else { continue }
            if object.hasChanges {
                if let snapshot = try? snapshotFromSource(id) { merge(object, with: snapshot, localWins: true) }
            } else {
                object.storage = []
                object.flags.insert(.fault)
            }
        }
        for id in notification.deletedObjectIDs {
            guard let object = registered.removeValue(forKey: id) else { continue }
            if object.hasChanges { discardChanges(of: object) }
            object.context = nil
        }
    }

    /// Resolves conflicts of a failed save by the merge policy, so the save can be retried.
    func resolve(_ conflicts: [Conflict]) throws {
        for conflict in conflicts {
            guard let object = registered[conflict.objectID] else { throw GraphError.conflict(conflicts) }
            guard let snapshot = try snapshotFromSource(conflict.objectID) else {
                // Deleted in the store: a deletion here is already satisfied; anything else cannot merge.
                guard object.isDeleted else { throw GraphError.conflict(conflicts) }
                discardChanges(of: object)
                registered[object.objectID] = nil
                object.context = nil
                continue
            }
            merge(object, with: snapshot, localWins: mergePolicy == .objectTrumps)
        }
    }

    /// Property by property: where only one side changed a value, that change is kept;
    /// where both did, `localWins` decides. The object then counts as read at the store's version.
    private func merge(_ object: ManagedObject, with snapshot: ObjectSnapshot, localWins: Bool) {
        let base = committedStorage(of: object)
        var merged = object.storage
        for index in merged.indices {
            let localChanged = merged[index] != base[index]
            let storeChanged = snapshot.values[index] != base[index]
            if storeChanged && (!localChanged || !localWins) { merged[index] = snapshot.values[index] }
        }
        if object.hasChanges { committed[ObjectIdentifier(object)] = snapshot.values }
        object.storage = merged
        object.version = snapshot.version
    }

    /// Drops one object's unsaved changes (values back to committed, off the change list).
    private func discardChanges(of object: ManagedObject) {
        if let values = committed.removeValue(forKey: ObjectIdentifier(object)) { object.storage = values }
        object.flags.subtract([.updated, .deleted])
        if object.isInserted {
            object.flags.remove(.inserted)
            registered[object.objectID] = nil
            object.context = nil
        }
    }
}
