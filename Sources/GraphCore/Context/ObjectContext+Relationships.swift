import Foundation

/// Relationship changes keep both sides consistent at once: setting `song.album` adds the
/// song to `album.songs`, removes it from the old album's, and the other way round.
///
/// The primitives below change one side (`setPrimitive`, `mutateToMany`); `connect` and
/// `disconnect` change a relationship and its inverse together.
extension ObjectContext {
    func setToOne(_ target: ManagedObject?, at index: Int, of object: ManagedObject) throws {
        try checkUsable(object)
        try object.fulfill()
        if let target { try checkTarget(target, at: index, of: object) }
        let current: ObjectID? = if case .object(let id) = object.storage[index] { id } else { nil }
        if current == target?.objectID { return }
        if let current { try disconnect(object, index, fromID: current) }
        if let target { try connect(object, index, target, knownAbsent: true, position: nil) }
    }

    func setToMany(_ targets: [ManagedObject], at index: Int, of object: ManagedObject) throws {
        try checkUsable(object)
        try object.fulfill()
        for target in targets { try checkTarget(target, at: index, of: object) }
        guard case .objects(let current) = object.storage[index] else { return }
        let wanted = Set(targets.map(\.objectID))
        for id in current where !wanted.contains(id) {
            try disconnect(object, index, fromID: id)
        }
        var seen = Set<ObjectID>()
        for (position, target) in targets.enumerated() where seen.insert(target.objectID).inserted {
            try connect(object, index, target, knownAbsent: false, position: position)
        }
    }

    func addToMany(_ target: ManagedObject, at index: Int, of object: ManagedObject, position: Int?) throws {
        try checkUsable(object)
        try object.fulfill()
        try checkTarget(target, at: index, of: object)
        try connect(object, index, target, knownAbsent: false, position: position)
    }

    func removeFromMany(_ target: ManagedObject, at index: Int, of object: ManagedObject) throws {
        try checkUsable(object)
        try object.fulfill()
        try disconnect(object, index, fromID: target.objectID)
    }

    private func checkTarget(_ target: ManagedObject, at index: Int, of object: ManagedObject) throws {
        let entity = object.entity
        let key = entity.properties[index].name
        guard target.context === self else { throw GraphError.differentContexts(entity: entity.name, key: key) }
        if target.isDeleted { throw GraphError.objectInaccessible(target.objectID, reason: "it was deleted") }
        guard let destination = entity.destination(ofPropertyAt: index) else { return }
        guard target.entity.isKind(of: destination) else {
            throw GraphError.wrongDestination(entity: entity.name, key: key, expected: destination.name, got: target.entity.name)
        }
    }

    /// `object.index` gains `target`; the inverse of `target` gains `object`.
    ///
    /// `knownAbsent` says the caller knows `object.index` does not hold `target` (skips a scan).
    /// `position` moves or inserts `target` there in an ordered relationship.
    func connect(_ object: ManagedObject, _ index: Int, _ target: ManagedObject, knownAbsent: Bool, position: Int?) throws {
        let entity = object.entity
        guard case .relationship(let relationship) = entity.properties[index] else { return }
        if relationship.isToMany {
            guard let slot = toManySlot(at: index, of: object, find: knownAbsent ? nil : target.objectID) else { return }
            if let existing = slot.position {
                // Already there: only a move within an ordered relationship changes anything.
                guard let position, relationship.isOrdered else { return }
                let destination = min(max(position, 0), slot.count - 1)
                guard destination != existing else { return }
                mutateToMany(at: index, of: object) { ids in
                    ids.remove(at: existing)
                    ids.insert(target.objectID, at: destination)
                }
                return
            }
            mutateToMany(at: index, of: object) { ids in
                if let position, relationship.isOrdered {
                    ids.insert(target.objectID, at: min(max(position, 0), ids.count))
                } else {
                    ids.append(target.objectID)
                }
            }
        } else {
            if case .object(let old) = object.storage[index] {
                if old == target.objectID { return }
                try disconnectInverse(of: object, index, fromID: old)
            }
            setPrimitive(.object(target.objectID), at: index, of: object)
        }
        guard let inverseIndex = entity.inverseIndices[index] else { return }
        try target.fulfill()
        try connectInverse(target, inverseIndex, object, forwardIndex: index)
    }

    /// The inverse side only: `target.inverseIndex` gains `object`. A to-one inverse that held
    /// another object first removes `target` from that object's forward relationship.
    private func connectInverse(_ target: ManagedObject, _ inverseIndex: Int, _ object: ManagedObject, forwardIndex: Int) throws {
        guard case .relationship(let inverse) = target.entity.properties[inverseIndex] else { return }
        if inverse.isToMany {
            // The forward side was just changed to include `target`; if it is to-one, the
            // inverse list cannot hold `object` yet (both sides were consistent before).
            let forwardIsToOne = object.entity.properties[forwardIndex].relationship?.isToMany == false
            guard let slot = toManySlot(at: inverseIndex, of: target, find: forwardIsToOne ? nil : object.objectID),
                  slot.position == nil
            else { return }
            mutateToMany(at: inverseIndex, of: target) { ids in ids.append(object.objectID) }
        } else {
            if case .object(let previous) = target.storage[inverseIndex] {
                if previous == object.objectID { return }
                let previousObject = self.object(with: previous)
                try previousObject.fulfill()
                removeOneSide(previousObject, forwardIndex, target.objectID)
            }
            setPrimitive(.object(object.objectID), at: inverseIndex, of: target)
        }
    }

    /// The length of a to-many slot and where it holds `id` (nil when absent, or when `id`
    /// is nil: no scan); nil when the slot holds no list. Reading it first lets the callers
    /// change (and mark) an object only when its list really changes.
    private func toManySlot(at index: Int, of object: ManagedObject, find id: ObjectID?) -> (count: Int, position: Int?)? {
        guard case .objects(let ids) = object.storage[index] else { return nil }
        return (ids.count, id.flatMap { ids.firstIndex(of: $0) })
    }

    /// `object.index` loses the object with `id`; that object's inverse loses `object`.
    func disconnect(_ object: ManagedObject, _ index: Int, fromID id: ObjectID) throws {
        removeOneSide(object, index, id)
        try disconnectInverse(of: object, index, fromID: id)
    }

    /// The inverse side only: the object with `id` stops pointing back at `object`.
    private func disconnectInverse(of object: ManagedObject, _ index: Int, fromID id: ObjectID) throws {
        guard let inverseIndex = object.entity.inverseIndices[index] else { return }
        let target = self.object(with: id)
        do {
            try target.fulfill()
        } catch GraphError.objectNotFound {
            return  // the other side is gone already: nothing points back
        }
        if target.isDeleted && !target.isInserted { return }
        removeOneSide(target, inverseIndex, object.objectID)
    }

    /// Removes `id` from one slot (to-one: only if it holds `id`).
    func removeOneSide(_ object: ManagedObject, _ index: Int, _ id: ObjectID) {
        switch object.storage[index] {
        case .object(let current) where current == id:
            setPrimitive(.null, at: index, of: object)
        case .objects(let ids) where ids.contains(id):
            mutateToMany(at: index, of: object) { ids in
                if let position = ids.firstIndex(of: id) { ids.remove(at: position) }
            }
        default:
            break
        }
    }
}
