import Foundation

extension ObjectContext {
    /// Deletes an object and applies the delete rules of its relationships at once:
    /// `nullify` removes it from the related objects' inverse, `cascade` deletes the related
    /// objects too (following chains), `deny` is checked when saving, `noAction` does nothing.
    ///
    /// An object inserted since the last save simply disappears.
    public func delete(_ object: ManagedObject) throws {
        guard object.context === self else {
            throw GraphError.objectInaccessible(object.objectID, reason: "it belongs to another context (or none)")
        }
        if object.isDeleted { return }
        try object.fulfill()
        var pending = [object]
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(object)]
        while let next = pending.popLast() {
            let cascaded = try applyDeleteRules(of: next)
            markDeleted(next)
            for target in cascaded where seen.insert(ObjectIdentifier(target)).inserted && !target.isDeleted {
                pending.append(target)
            }
        }
    }

    /// Applies nullify to the other sides; returns the objects a cascade rule deletes too.
    private func applyDeleteRules(of object: ManagedObject) throws -> [ManagedObject] {
        var cascaded: [ManagedObject] = []
        let entity = object.entity
        for index in entity.relationshipIndices {
            guard case .relationship(let relationship) = entity.properties[index] else { continue }
            let ids: [ObjectID]
            switch object.storage[index] {
            case .object(let id): ids = [id]
            case .objects(let list): ids = list
            default: ids = []
            }
            guard !ids.isEmpty else { continue }
            switch relationship.deleteRule {
            case .nullify:
                guard let inverseIndex = entity.inverseIndices[index] else { continue }
                for id in ids {
                    let target = self.object(with: id)
                    do { try target.fulfill() } catch GraphError.objectNotFound { continue }
                    if target.isDeleted { continue }
                    removeOneSide(target, inverseIndex, object.objectID)
                }
            case .cascade:
                for id in ids {
                    let target = self.object(with: id)
                    do { try target.fulfill() } catch GraphError.objectNotFound { continue }
                    cascaded.append(target)
                }
            case .deny, .noAction:
                continue
            }
        }
        return cascaded
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
            let ids: [ObjectID]
            switch object.storage[index] {
            case .object(let id): ids = [id]
            case .objects(let list): ids = list
            default: ids = []
            }
            let blocking = ids.filter { registered[$0]?.isDeleted != true }
            if !blocking.isEmpty {
                failures.append(ValidationFailure(objectID: object.objectID, key: relationship.name,
                                                  reason: .deleteDenied(blocking: blocking)))
            }
        }
        return failures
    }
}
