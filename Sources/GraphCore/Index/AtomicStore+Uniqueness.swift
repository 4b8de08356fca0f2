extension AtomicStore {
    /// Refuses a save after which two objects of an entity (or its sub-entities) would hold
    /// the same values for one of its ``EntityDescription/uniquenessConstraints``: against the
    /// objects the store keeps and among the objects of the save itself. A nil among the
    /// values takes part in no constraint (as SQL's `UNIQUE`).
    ///
    /// An existing object is found through the index on the constraint's first attribute when
    /// there is one; otherwise the entity's objects are read once per save.
    ///
    /// - Throws: ``GraphError/uniquenessViolation(entity:attributes:values:objects:)``.
    func checkUniqueness(_ request: SaveChangesRequest) throws {
        guard let model, model.entities.contains(where: { !$0.uniquenessConstraints.isEmpty }) else { return }
        let changed = request.insertedObjects + request.updatedObjects
        guard !changed.isEmpty else { return }
        refreshIndexes()
        var leaving = Set<ObjectID>()
        for snapshot in request.updatedObjects + request.deletedObjects { leaving.insert(snapshot.objectID) }
        var seen: [String: [[Value]: ObjectID]] = [:]
        var existing: [String: [[Value]: ObjectID]] = [:]
        for snapshot in changed {
            let entity = snapshot.objectID.entity
            var declaring: EntityDescription? = entity
            while let owner = declaring {
                for constraint in owner.uniquenessConstraints where !constraint.isEmpty {
                    guard let values = entity.constraintValues(constraint, in: snapshot.values) else { continue }
                    let name = "\(owner.name)|\(constraint.joined(separator: ","))"
                    func violation(_ other: ObjectID) -> GraphError {
                        .uniquenessViolation(entity: owner.name, attributes: constraint, values: values, objects: [other, snapshot.objectID])
                    }
                    if let other = seen[name]?[values], other != snapshot.objectID { throw violation(other) }
                    seen[name, default: [:]][values] = snapshot.objectID
                    if let other = try existingObject(owner, constraint, values, leaving: leaving, cache: &existing[name]),
                       other != snapshot.objectID {
                        throw violation(other)
                    }
                }
                declaring = owner.parent
            }
        }
    }

    /// A kept object of `owner` or its sub-entities holding `values`, other than those the
    /// save changes or deletes.
    private func existingObject(_ owner: EntityDescription, _ constraint: [String], _ values: [Value], leaving: Set<ObjectID>,
                                cache: inout [[Value]: ObjectID]?) throws -> ObjectID? {
        let tables = nodeTables
        let entities = (model?.entities ?? []).filter { $0.isKind(of: owner) && !(tables[$0.name]?.isEmpty ?? true) }
        let indexed = entities.compactMap { storeIndexes.index(ofEntity: $0.name, firstKey: constraint[0]) }.filter { $0.unindexedCount == 0 }
        if indexed.count == entities.count, let first = IndexKey(values[0]) {
            var found: ObjectID?
            for (entity, index) in zip(entities, indexed) {
                let snapshot = lookup(ofEntity: entity.name)
                index.tree.walk(firstKey: first) { entry in
                    guard let node = snapshot(entry.reference), !leaving.contains(node.objectID),
                          node.objectID.entity.constraintValues(constraint, in: node.values) == values else { return true }
                    found = node.objectID
                    return false
                }
                if found != nil { return found }
            }
            return nil
        }
        if cache == nil {
            var table: [[Value]: ObjectID] = [:]
            for entity in entities {
                tables[entity.name]?.forEach { node in
                    guard !leaving.contains(node.objectID),
                          let key = entity.constraintValues(constraint, in: node.values) else { return }
                    table[key] = node.objectID
                }
            }
            cache = table
        }
        return cache?[values]
    }
}

extension AtomicStore {
    /// The first pair of kept objects that share the values of a uniqueness constraint (as a
    /// store file written by another program may hold), or nil when every constraint holds:
    /// for `docserver check`. Constraints in the order of the model's entities, objects in
    /// reference order, so the answer is the same on every run.
    ///
    /// - Returns: ``GraphError/uniquenessViolation(entity:attributes:values:objects:)``
    ///   naming the declaring entity, the attributes, the shared values and both objects.
    public func firstUniquenessViolation() -> GraphError? {
        guard let model else { return nil }
        let tables = nodeTables
        for owner in model.entities {
            for constraint in owner.uniquenessConstraints where !constraint.isEmpty {
                var nodes: [ObjectSnapshot] = []
                for entity in model.entities where entity.isKind(of: owner) { tables[entity.name]?.forEach { nodes.append($0) } }
                nodes.sort { a, b in SnapshotIndexEntry.referenceOrder(a.objectID, b.objectID) < 0 || (
                    SnapshotIndexEntry.referenceOrder(a.objectID, b.objectID) == 0 && a.objectID.entityName < b.objectID.entityName) }
                var seen: [[Value]: ObjectID] = [:]
                for node in nodes {
                    guard let values = node.objectID.entity.constraintValues(constraint, in: node.values) else { continue }
                    if let other = seen[values] {
                        return .uniquenessViolation(entity: owner.name, attributes: constraint, values: values, objects: [other, node.objectID])
                    }
                    seen[values] = node.objectID
                }
            }
        }
        return nil
    }
}
