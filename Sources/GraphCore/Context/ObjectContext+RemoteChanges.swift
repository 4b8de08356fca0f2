import Foundation

extension ObjectContext {
    /// Merges the changes other processes made to this context's stores, as the stores
    /// reported them to the coordinator (``StoreCoordinator/postRemoteChange(_:)``), the way
    /// ``mergeChanges(from:)`` merges another context's save:
    ///
    /// - an object without unsaved changes that another process updated becomes a fault,
    ///   read again (with the new values) on its next access;
    /// - an object with unsaved changes is read again now, and keeps its changes on top:
    ///   where both changed a property, this context's value wins, and the object counts as
    ///   read at the new version, so its next save does not conflict over the merged change;
    /// - an object another process deleted leaves the context (its unsaved changes with it),
    ///   and relationships this context changed forget it;
    /// - objects another process inserted show up in the next fetch.
    ///
    /// When changes were missed (a store lost track of them), every object without unsaved
    /// changes becomes a fault; objects with unsaved changes keep them and the version they
    /// were read at, so their next save fails with ``GraphError/conflict(_:)`` if another
    /// process changed them.
    ///
    /// A context with ``automaticallyMergesRemoteChanges`` (the default) calls this itself
    /// before each fetch, ``existingObject(with:)`` and save. A child context merges nothing:
    /// it reads through its parent.
    public func mergeRemoteChanges() {
        guard parent == nil, let pending = coordinator.remoteChanges.pending(after: remoteChangeCursor) else { return }
        remoteChangeCursor = pending.cursor
        for entry in pending.entries {
            switch entry {
            case .change(let change):
                mergeChanges(from: change)
            case .missed:
                refaultUnchangedObjects()
            }
        }
    }

    /// ``mergeRemoteChanges()`` when the context merges them by itself and there are some.
    func mergeRemoteChangesIfNeeded() {
        guard automaticallyMergesRemoteChanges, parent == nil,
              coordinator.remoteChanges.newest.load(ordering: .acquiring) != remoteChangeCursor
        else { return }
        mergeRemoteChanges()
    }

    /// Turns every loaded object without unsaved changes back into a fault.
    private func refaultUnchangedObjects() {
        var refaulted: [ObjectID] = []
        registered.forEach { object in
            guard !object.isFault, !object.hasChanges else { return }
            object.storage = []
            object.flags.insert(.fault)
            refaulted.append(object.objectID)
        }
        coordinator.objectsDidBecomeFaults(refaulted)
    }
}
