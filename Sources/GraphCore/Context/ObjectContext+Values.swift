import Foundation

extension ObjectContext {
    /// Writes a value by key: attributes are checked and converted; relationship values
    /// (``Value/object(_:)``, ``Value/objects(_:)``, ``Value/null``) go through the
    /// relationship setters so inverses follow.
    func setValue(_ value: Value, forKey key: String, of object: ManagedObject) throws {
        try checkUsable(object)
        let entity = object.entity
        let index = try object.propertyIndex(key)
        if let attribute = entity.attributeSlots[index] {
            guard let converted = value.converted(to: attribute.type) else {
                throw GraphError.typeMismatch(entity: entity.name, key: key,
                                              expected: attribute.type.rawValue, got: value.kindName)
            }
            if converted.isNull, !attribute.isOptional {
                throw GraphError.requiredValue(entity: entity.name, key: key)
            }
            try object.fulfill()
            setPrimitive(converted, at: index, of: object)
            return
        }
        switch entity.properties[index] {
        case .attribute:
            return  // handled above
        case .relationship(let relationship):
            switch (relationship.isToMany, value) {
            case (false, .null):
                try setToOne(nil, at: index, of: object)
            case (false, .object(let id)):
                try setToOne(try relatedObject(id, key: key, of: object), at: index, of: object)
            case (true, .objects(let ids)):
                try setToMany(ids.map { try relatedObject($0, key: key, of: object) }, at: index, of: object)
            case (true, .null):
                try setToMany([], at: index, of: object)
            default:
                throw GraphError.typeMismatch(entity: entity.name, key: key,
                                              expected: relationship.isToMany ? "objects" : "object", got: value.kindName)
            }
        }
    }

    /// The object an ID in a relationship value stands for; it must exist.
    private func relatedObject(_ id: ObjectID, key: String, of object: ManagedObject) throws -> ManagedObject {
        do {
            return try existingObject(with: id)
        } catch GraphError.objectNotFound {
            throw GraphError.objectNotFound(id)
        }
    }

    /// Sets one slot of a loaded object, recording the change for save, rollback and undo.
    func setPrimitive(_ value: Value, at index: Int, of object: ManagedObject) {
        let old = object.storage[index]
        guard old != value else { return }
        willChange(object)
        undoStack?.record(.set(object, index: index, old: old, new: value))
        object.storage[index] = value
    }

    /// Edits a to-many slot in place (no copy of the list when undo is off). Callers call it
    /// only for an edit that changes the list: it marks the object changed.
    func mutateToMany(at index: Int, of object: ManagedObject, _ body: (inout [ObjectID]) -> Void) {
        guard case .objects = object.storage[index] else { return }
        willChange(object)
        guard case .objects(var ids) = object.storage[index] else { return }
        if let undoStack {
            let old = ids
            body(&ids)
            undoStack.record(.set(object, index: index, old: .objects(old), new: .objects(ids)))
            object.storage[index] = .objects(ids)
        } else {
            object.storage[index] = .null  // release the buffer so `ids` is its only owner
            body(&ids)
            object.storage[index] = .objects(ids)
        }
    }

    /// Refuses objects that left this context or were deleted.
    func checkUsable(_ object: ManagedObject) throws(GraphError) {
        guard object.context === self else {
            throw .objectInaccessible(object.objectID, reason: "it belongs to another context (or none)")
        }
        if object.isDeleted {
            throw .objectInaccessible(object.objectID, reason: "it was deleted")
        }
    }
}
