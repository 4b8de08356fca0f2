import Foundation

extension ObjectContext {
    /// Validates and saves every change at once: to the stores, or into the parent context
    /// for a child context. Nothing is saved when anything fails.
    ///
    /// - Throws: ``GraphError/validation(_:)`` listing every invalid object and property;
    ///   ``GraphError/conflict(_:)`` when objects changed in the store since they were read
    ///   (unless ``mergePolicy`` resolves it); a store's own error when it cannot write.
    public func save() throws {
        try save(metadata: CommitMetadata())
    }

    /// ``save()`` with the commit's metadata (its author, time, parts, the versions its writers
    /// read), which the store writes with it; returns what the store did: the new IDs and
    /// versions, and the numbers of its commits (``SaveResult/sequences``). A child context
    /// pushes its changes into its parent and returns an empty result (the metadata goes with
    /// the parent's own save).
    ///
    /// - Throws: as ``save()``.
    @discardableResult
    public func save(metadata: CommitMetadata) throws -> SaveResult {
        if let error = deferredErrors.first { throw error }
        mergeRemoteChangesIfNeeded()
        var changed = changeList.filter { $0.hasChanges }
        guard !changed.isEmpty else {
            clearChangeState()
            return SaveResult()
        }
        let failures = validationFailures(of: changed)
        guard failures.isEmpty else { throw GraphError.validation(failures) }

        if let parent {
            // Inserted objects go up with permanent IDs, so that this context's objects still
            // name the same objects once the parent has saved them (and this context saves
            // changes to them again). A store that cannot give IDs yet leaves them temporary.
            try? assignPermanentIDs(changed)
            let notification = pushChanges(changed, into: parent)
            finishSave(changed, notification: notification)
            return SaveResult()
        }

        try assignPermanentIDs(changed)
        var attempts = 0
        var constraintMerges = 0
        while true {
            var request = makeSaveRequest(changed)
            if request.isEmpty {
                finishSave(changed, notification: ContextDidSave())
                return SaveResult()
            }
            request.metadata = metadata
            do {
                let result = try coordinator.execute(request)
                let notification = apply(result, to: changed)
                finishSave(changed, notification: notification)
                coordinator.post(notification, from: self)
                return result
            } catch GraphError.conflict(let conflicts) where mergePolicy != .error && attempts < 3 {
                attempts += 1
                try resolve(conflicts)
                // Mending inverses may have changed objects this save did not hold yet.
                changed = changeList.filter { $0.hasChanges }
            } catch GraphError.uniquenessViolation(let entity, let attributes, let values, let objects)
                        where mergePolicy == .objectTrumpsMergingConstraints {
                // One merge per violation: at most one per inserted object.
                let violation = GraphError.uniquenessViolation(entity: entity, attributes: attributes, values: values, objects: objects)
                guard constraintMerges < changed.count, try mergeByConstraint(objects) else { throw violation }
                constraintMerges += 1
                changed = changeList.filter { $0.hasChanges }
            }
        }
    }

    /// What a save would check, without saving: the validation failures of every changed object.
    public func validationFailures() -> [ValidationFailure] {
        validationFailures(of: changeList.filter { $0.hasChanges })
    }

    private func validationFailures(of changed: [ManagedObject]) -> [ValidationFailure] {
        changed.flatMap { object -> [ValidationFailure] in
            if object.isDeleted { return object.isInserted ? [] : denyFailures(of: object) }
            return validationFailures(of: object)
        }
    }

    /// Required values, types, value rules (minimum, maximum, pattern) and to-many counts of one object.
    func validationFailures(of object: ManagedObject) -> [ValidationFailure] {
        ObjectSnapshot.validationFailures(of: object.storage, objectID: object.objectID)
    }

    /// Gives inserted objects their permanent IDs before the save is sent, so that the values
    /// the store keeps and the context keeps are one shared buffer. If the save then fails,
    /// the objects keep these IDs and are still inserted: the next save uses them.
    private func assignPermanentIDs(_ changed: [ManagedObject]) throws {
        let inserted = changed.filter { $0.isInserted && !$0.isDeleted && $0.objectID.isTemporary }
        guard !inserted.isEmpty else { return }
        // A store that numbers objects as it saves them leaves them temporary until then.
        guard let ids = try coordinator.obtainPermanentIDs(for: inserted.map({
            ObjectSnapshot(objectID: $0.objectID, version: 0, values: [])
        })) else { return }
        // Relationship values name inserted objects by temporary ID: each temporary ID points
        // to its permanent one (no lookup); IDs parsed from elsewhere are found in the
        // registry, which still holds every object under its temporary ID meanwhile.
        let temporaryIDs = inserted.map(\.objectID)
        for (object, permanent) in zip(inserted, ids) {
            object.objectID.forward(to: permanent)
            object.objectID = permanent
        }
        for object in changed where !object.isDeleted {
            rewriteIDs(in: object) { [registered] id in id.forwardedPermanentID ?? registered[id]?.objectID }
        }
        if registered.temporaryCount == temporaryIDs.count {
            registered.removeTemporary()  // all at once: they are exactly the objects saved now
        } else {
            for temporary in temporaryIDs { registered[temporary] = nil }
        }
        if let first = ids.first { registered.reserveCapacity(ids.count, like: first) }
        for object in inserted { registered[object.objectID] = object }
    }

    /// The store request for the changed objects; updated objects whose values came back to
    /// the committed ones are left out.
    private func makeSaveRequest(_ changed: [ManagedObject]) -> SaveChangesRequest {
        var request = SaveChangesRequest()
        for object in changed {
            if object.isDeleted {
                if !object.isInserted {
                    request.deletedObjects.append(committedSnapshot(of: object))
                }
            } else if object.isInserted {
                request.insertedObjects.append(ObjectSnapshot(objectID: object.objectID, version: 0, values: object.storage))
            } else if object.flags.contains(.updated), object.storage != committedStorage(of: object) {
                request.updatedObjects.append(ObjectSnapshot(objectID: object.objectID, version: object.version, values: object.storage))
            }
        }
        return request
    }

    /// Takes the store's permanent IDs and versions into the objects.
    private func apply(_ result: SaveResult, to changed: [ManagedObject]) -> ContextDidSave {
        var notification = ContextDidSave()
        for object in changed where object.isInserted && !object.isDeleted {
            guard let permanent = result.permanentIDs[object.objectID] else { continue }
            registered[object.objectID] = nil
            object.objectID = permanent
            registered[permanent] = object
        }
        if !result.permanentIDs.isEmpty {
            for object in changed where !object.isDeleted {
                rewriteIDs(in: object) { result.permanentIDs[$0] }
            }
        }
        notification.inserted.reserveCapacity(changed.count)
        for object in changed {
            if object.isDeleted {
                if !object.isInserted { notification.deleted.append(object.objectID) }
                continue
            }
            if object.isInserted {
                object.version = result.versions[object.objectID] ?? 1
                notification.inserted.append(object.objectID)
            } else if object.flags.contains(.updated), object.storage != committedStorage(of: object) {
                object.version = result.versions[object.objectID] ?? Self.nextVersion(after: object.version)
                notification.updated.append(object.objectID)
            }
        }
        return notification
    }

    /// Replaces temporary IDs by permanent ones in an object's relationship values.
    func rewriteIDs(in object: ManagedObject, _ permanentID: (ObjectID) -> ObjectID?) {
        for index in object.entity.relationshipIndices {
            switch object.storage[index] {
            case .object(let id) where id.isTemporary:
                if let permanent = permanentID(id) { object.storage[index] = .object(permanent) }
            case .objects(let ids) where ids.contains(where: \.isTemporary):
                object.storage[index] = .objects(ids.map { $0.isTemporary ? (permanentID($0) ?? $0) : $0 })
            default:
                break
            }
        }
    }

    /// Ends a save: deleted objects leave the context, the rest become unchanged.
    private func finishSave(_ changed: [ManagedObject], notification: ContextDidSave) {
        for object in changed where object.isDeleted {
            registered[object.objectID] = nil
            object._context = nil
        }
        clearChangeState()
        undoStack?.removeAll()
        for observer in saveObservers { observer.handler(notification) }
    }

    /// Forgets all change tracking (after a save or a rollback).
    func clearChangeState() {
        for object in changeList { object.flags.subtract([.inserted, .updated, .deleted, .listed]) }
        changeList.removeAll()
        committed.removeAll()
        deferredErrors.removeAll()
    }

    // MARK: - Child contexts

    /// Pushes a child's changes into its parent, which tracks them as its own.
    private func pushChanges(_ changed: [ManagedObject], into parent: ObjectContext) -> ContextDidSave {
        var notification = ContextDidSave()
        for object in changed where !object.isDeleted {
            let id = object.objectID
            if object.isInserted {
                parent.adoptInserted(id, values: object.storage)
                notification.inserted.append(id)
            } else {
                let target = parent.object(with: id)
                if target.isFault { parent.fill(target, with: committedSnapshot(of: object)) }
                // Only what the child changed: the parent may have changed other properties
                // (or the same list) since the child read the object.
                let base = committedStorage(of: object)
                var pushed = false
                for index in object.storage.indices where object.storage[index] != base[index] {
                    let value = Self.pushedValue(object.storage[index], base: base[index], parentValue: target.storage[index])
                    parent.setPrimitive(value, at: index, of: target)
                    pushed = true
                }
                if pushed { notification.updated.append(id) }
            }
        }
        for object in changed where object.isDeleted && !object.isInserted {
            let target = parent.object(with: object.objectID)
            if target.isFault { parent.fill(target, with: committedSnapshot(of: object)) }
            parent.markDeletedWithoutRules(target)
            notification.deleted.append(object.objectID)
        }
        return notification
    }

    /// The value a child's changed property gives its parent. A to-many list the parent changed
    /// too gets the child's additions and removals, so neither side's changes are lost (and
    /// inverses stay consistent); any other value is the child's.
    private static func pushedValue(_ value: Value, base: Value, parentValue: Value) -> Value {
        guard case .objects(let mine) = value, case .objects(let original) = base,
              case .objects(let theirs) = parentValue, theirs != original
        else { return value }
        return .objects(mergedList(mine: mine, theirs: theirs, base: original))
    }

    /// What this context read of an object: its committed values at its version.
    private func committedSnapshot(of object: ManagedObject) -> ObjectSnapshot {
        ObjectSnapshot(objectID: object.objectID, version: object.version, values: committedStorage(of: object))
    }

    /// Registers an object a child context inserted, under the child's temporary ID.
    private func adoptInserted(_ id: ObjectID, values: [Value]) {
        let object = registered[id] ?? makeObject(id)
        object.storage = values
        object.flags = [.inserted]
        list(object)
        registered[id] = object
        undoStack?.record(.insert(object))
    }

    /// A deletion whose rules the child context applied already.
    private func markDeletedWithoutRules(_ object: ManagedObject) {
        if !object.flags.contains(.inserted) { willChange(object) }
        object.flags.insert(.deleted)
        list(object)
        undoStack?.record(.delete(object))
    }

    /// The version after `version`, saturated at `Int64.max` (the store refuses to save an
    /// object at that version, so the saturated value never reaches a store).
    public static func nextVersion(after version: Int64) -> Int64 {
        version < Int64.max ? version + 1 : Int64.max
    }
}
