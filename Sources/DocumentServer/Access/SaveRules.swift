import DocumentProtocol
import GraphCore

/// Checks a `save` against the grants of its user before the writer sees it, on the latest
/// committed state (`docs/SECURITY.md`, Saves):
///
/// - an insert needs `insert` on its entity, and its row rule must hold for the new object
///   (its attributes as the save sets them, the others at their defaults);
/// - an update needs `update`, and its rule must hold for the object both before and after
///   the change (an update cannot move an object out of what its user may update);
/// - a delete needs `delete`, and its rule must hold for the object;
/// - a relationship change that has an inverse changes the other side too: each existing
///   object it adds or removes needs `update` (its rule holding for it); a delete changes
///   the objects its relationships with an inverse reach: `delete` on those its delete rule
///   cascades to, `update` on the others.
///
/// Updates and deletes name the version they read; an object the state holds at another
/// version is answered as a conflict, so that the writer never applies a save checked
/// against another version. The first refusal is answered, naming the entity, the operation
/// and the object; nothing of the save is applied.
struct SaveRules {
    let principal: Principal
    let state: ReadState

    func refusal(_ call: SaveCall) -> RPCError? {
        let rules = RowRules(state: state)
        for insert in call.inserts {
            let access = principal.access(.insert, insert.entity)
            if access == .none { return forbidden(.insert, insert.entity.name, insert.temporaryID, "no insert grant on \(insert.entity.name)") }
            var values = insert.entity.properties.map { property -> Value in
                switch property {
                case .attribute(let attribute): return attribute.defaultValue.flatMap { $0.converted(to: attribute.type) } ?? .null
                case .relationship(let relationship): return relationship.isToMany ? .objects([]) : .null
                }
            }
            apply(insert.values, to: &values, entity: insert.entity)
            let object = ObjectSnapshot(objectID: ObjectID.temporary(for: insert.entity), version: 0, values: values)
            if !rules.permits(access, object) {
                return forbidden(.insert, insert.entity.name, insert.temporaryID, "the new object is outside your insert rule on \(insert.entity.name)")
            }
            if let refusal = relatedRefusal(insert.values, entity: insert.entity, before: nil, rules: rules) { return refusal }
        }
        for update in call.updates {
            let entity = update.id.entity
            let access = principal.access(.update, entity)
            let id = update.id.uriRepresentation
            if access == .none { return forbidden(.update, entity.name, id, "no update grant on \(entity.name)") }
            guard let stored = state.canonicalSnapshot(of: update.id) else { continue }  // the writer answers `not found`
            // The rule first: a conflict would tell the version of an object the user may not touch.
            if !rules.permits(access, stored) { return forbidden(.update, entity.name, id, "the object is outside your update rule on \(entity.name)") }
            guard stored.version == update.version else { return .conflict([(id: id, expected: update.version, current: Optional(stored.version))]) }
            var after = stored
            apply(update.values, to: &after.values, entity: stored.objectID.entity)
            if !rules.permits(access, after) {
                return forbidden(.update, entity.name, id, "the change would move the object out of your update rule on \(entity.name)")
            }
            if let refusal = relatedRefusal(update.values, entity: stored.objectID.entity, before: stored, rules: rules) { return refusal }
        }
        for delete in call.deletes {
            let entity = delete.id.entity
            let access = principal.access(.delete, entity)
            let id = delete.id.uriRepresentation
            if access == .none { return forbidden(.delete, entity.name, id, "no delete grant on \(entity.name)") }
            guard let stored = state.canonicalSnapshot(of: delete.id) else { continue }
            if !rules.permits(access, stored) { return forbidden(.delete, entity.name, id, "the object is outside your delete rule on \(entity.name)") }
            guard stored.version == delete.version else { return .conflict([(id: id, expected: delete.version, current: Optional(stored.version))]) }
            for (index, property) in stored.objectID.entity.properties.enumerated() {
                guard case .relationship(let relationship) = property, relationship.inverse != nil else { continue }
                let operation: AccessOperation = relationship.deleteRule == .cascade ? .delete : .update
                for target in Self.targets(stored.values[index]) {
                    if let refusal = targetRefusal(target, operation, rules: rules, cause: "deleting \(id) changes it (\(relationship.name))") { return refusal }
                }
            }
        }
        return nil
    }

    /// The refusal for the existing objects a relationship change with an inverse adds or removes.
    private func relatedRefusal(_ assignments: [(key: String, value: SaveCall.Assignment)], entity: EntityDescription,
                                before: ObjectSnapshot?, rules: RowRules) -> RPCError? {
        for (key, assignment) in assignments {
            guard case .relationship(let relationship)? = entity.property(named: key), relationship.inverse != nil,
                  let index = entity.index(ofProperty: key) else { continue }
            var touched = Set<ObjectID>()
            switch assignment {
            case .attribute: continue
            case .toOne(let reference): if let id = reference?.existingID { touched.insert(id) }
            case .toMany(let references): touched.formUnion(references.compactMap(\.existingID))
            }
            let old = Set(before.map { Self.targets($0.values[index]) } ?? [])
            // Objects that stay related are not changed.
            let changed = touched.symmetricDifference(old)
            for target in changed {
                if let refusal = targetRefusal(target, .update, rules: rules, cause: "changing \(entity.name).\(key) changes its inverse") { return refusal }
            }
        }
        return nil
    }

    private func targetRefusal(_ target: ObjectID, _ operation: AccessOperation, rules: RowRules, cause: String) -> RPCError? {
        let access = principal.access(operation, target.entity)
        let id = target.uriRepresentation
        if access == .none { return forbidden(operation, target.entity.name, id, "\(cause); no \(operation.rawValue) grant on \(target.entity.name)") }
        guard let stored = state.canonicalSnapshot(of: target) else { return nil }
        if !rules.permits(access, stored) {
            return forbidden(operation, target.entity.name, id, "\(cause); it is outside your \(operation.rawValue) rule on \(target.entity.name)")
        }
        return nil
    }

    /// The values a save assigns, written into a snapshot's values (temporary references as nil).
    private func apply(_ assignments: [(key: String, value: SaveCall.Assignment)], to values: inout [Value], entity: EntityDescription) {
        for (key, assignment) in assignments {
            guard let index = entity.index(ofProperty: key), index < values.count else { continue }
            switch assignment {
            case .attribute(let value): values[index] = value
            case .toOne(let reference): values[index] = reference?.existingID.map { .object($0) } ?? .null
            case .toMany(let references): values[index] = .objects(references.compactMap(\.existingID))
            }
        }
    }

    private static func targets(_ value: Value) -> [ObjectID] {
        switch value {
        case .object(let id): return [id]
        case .objects(let ids): return ids
        default: return []
        }
    }

    private func forbidden(_ operation: AccessOperation, _ entity: String, _ id: String, _ reason: String) -> RPCError {
        .forbidden(operation: operation.rawValue, entity: entity, id: id, reason: reason)
    }
}
