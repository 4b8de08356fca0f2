import Foundation

extension ObjectContext {
    /// Deletes an object and applies the delete rules of its relationships at once:
    /// `nullify` removes it from the related objects' inverse, `cascade` deletes the related
    /// objects too (following chains), `deny` is checked when saving, `noAction` does nothing.
    ///
    /// An object inserted since the last save simply disappears. Since it leaves no trace to
    /// check at save, its `deny` rule is checked here: deleting it while a deny relationship
    /// holds objects that are not deleted with it throws ``GraphError/validation(_:)`` with a
    /// ``ValidationFailure/Reason/deleteDenied(blocking:)`` failure, and nothing is deleted.
    public func delete(_ object: ManagedObject) throws {
        // The deletion, its cascade and the nullified inverses undo as one step.
        try undoGroup { try deleteApplyingRules(object) }
    }

    private func deleteApplyingRules(_ object: ManagedObject) throws {
        guard object.context === self else {
            throw GraphError.objectInaccessible(object.objectID, reason: "it belongs to another context (or none)")
        }
        if object.isDeleted { return }
        try object.fulfill()
        let doomed = try deletionClosure(of: object)
        try checkDenyOfInserted(doomed)
        for next in doomed {
            try nullifyInverses(of: next)
            markDeleted(next)
        }
    }

    /// The object and every object a cascade rule deletes with it (following chains), each
    /// once, in the order they are deleted. Changes nothing.
    private func deletionClosure(of object: ManagedObject) throws -> [ManagedObject] {
        var doomed: [ManagedObject] = []
        var pending = [object]
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(object)]
        while let next = pending.popLast() {
            doomed.append(next)
            for target in try cascadeTargets(of: next)
            where !target.isDeleted && seen.insert(ObjectIdentifier(target)).inserted {
                pending.append(target)
            }
        }
        return doomed
    }

    /// The objects the cascade relationships of `object` hold (loaded; missing ones skipped).
    private func cascadeTargets(of object: ManagedObject) throws -> [ManagedObject] {
        var targets: [ManagedObject] = []
        let entity = object.entity
        for index in entity.relationshipIndices {
            guard case .relationship(let relationship) = entity.properties[index],
                  relationship.deleteRule == .cascade
            else { continue }
            for id in relatedIDs(of: object, at: index) {
                let target = self.object(with: id)
                do { try target.fulfill() } catch GraphError.objectNotFound { continue }
                targets.append(target)
            }
        }
        return targets
    }

    /// Applies nullify: the objects on the other side stop pointing at `object`.
    private func nullifyInverses(of object: ManagedObject) throws {
        let entity = object.entity
        for index in entity.relationshipIndices {
            guard case .relationship(let relationship) = entity.properties[index],
                  relationship.deleteRule == .nullify,
                  let inverseIndex = entity.inverseIndices[index]
            else { continue }
            for id in relatedIDs(of: object, at: index) {
                let target = self.object(with: id)
                do { try target.fulfill() } catch GraphError.objectNotFound { continue }
                if target.isDeleted { continue }
                removeOneSide(target, inverseIndex, object.objectID)
            }
        }
    }

    /// An inserted object vanishes when deleted and the save never sees it, so its deny rule
    /// is checked now: objects deleted together with it do not block.
    private func checkDenyOfInserted(_ doomed: [ManagedObject]) throws {
        let doomedIDs = Set(doomed.map(\.objectID))
        var failures: [ValidationFailure] = []
        for object in doomed where object.isInserted {
            for failure in denyFailures(of: object) {
                guard case .deleteDenied(let blocking) = failure.reason else { continue }
                let remaining = blocking.filter { !doomedIDs.contains($0) }
                if remaining.isEmpty { continue }
                failures.append(ValidationFailure(objectID: failure.objectID, key: failure.key,
                                                  reason: .deleteDenied(blocking: remaining)))
            }
        }
        if !failures.isEmpty { throw GraphError.validation(failures) }
    }

    private func relatedIDs(of object: ManagedObject, at index: Int) -> [ObjectID] {
        switch object.storage[index] {
        case .object(let id): return [id]
        case .objects(let list): return list
        default: return []
        }
    }

    private func markDeleted(_ object: ManagedObject) {
        if !object.flags.contains(.inserted) {
            willChange(object)
        }
        object.flags.insert(.deleted)
        list(object)
        undoStack?.record(.delete(object))
    }

    /// Validation of deletions: a deleted object whose `deny` relationship still holds
    /// objects that are not deleted themselves blocks the save.
    func denyFailures(of object: ManagedObject) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        let entity = object.entity
        for index in entity.relationshipIndices {
            guard case .relationship(let relationship) = entity.properties[index],
                  relationship.deleteRule == .deny
            else { continue }
            let blocking = relatedIDs(of: object, at: index).filter { registered[$0]?.isDeleted != true }
            if !blocking.isEmpty {
                failures.append(ValidationFailure(objectID: object.objectID, key: relationship.name,
                                                  reason: .deleteDenied(blocking: blocking)))
            }
        }
        return failures
    }
}
