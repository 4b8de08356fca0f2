import Foundation
import GraphCore

/// The checks a load of a new store file makes, made on the objects it is written from, in
/// memory and before it is written: required values, references (each exists once, is of the
/// destination entity, is listed once in a to-many value), inverses that agree, and the
/// model's uniqueness constraints. `docserver import` checks its objects so instead of
/// writing the file and loading it back whole: each object is then built once, not twice.
///
/// The rules are the loader's own (``ReferenceResolver``, the required attributes of
/// ``FlatProperties``), applied in the order of the file (entities by name, objects by
/// reference), so the first problem reported is the one the load would have found first.
enum ImportedContentCheck {
    typealias Group = (entity: EntityPlan, nodes: [ObjectSnapshot], references: [Int64])

    /// Throws what the load of a file holding `groups` (``StoreFileEncoder/groups``) would
    /// throw first, naming `file`; a uniqueness violation as
    /// ``GraphError/uniquenessViolation(entity:attributes:values:objects:)``.
    static func check(_ groups: [Group], plan: ModelPlan, file: String) throws {
        let count = groups.reduce(0) { $0 + $1.nodes.count }
        guard count < Int(Int32.max) else {
            throw JSONStoreError.invalidObject(file: file, entity: "", reference: nil,
                                               reason: "a store holds fewer than \(Int32.max) objects; the import has \(count)")
        }
        var nodes: [ObjectSnapshot] = [], nodeEntities: [Int32] = [], nodeReferences: [Int64] = []
        nodes.reserveCapacity(count)
        nodeEntities.reserveCapacity(count)
        nodeReferences.reserveCapacity(count)
        var toOne: [StoreFileDecoder.PendingReference] = []
        var toMany: [StoreFileDecoder.PendingList] = []
        var pool: [Int64] = []
        toOne.reserveCapacity(count)
        var maxReference: Int64 = 0
        for group in groups {
            let entity = group.entity, flat = entity.flat
            for (node, reference) in zip(group.nodes, group.references) {
                let values = node.values
                for slot in 0..<flat.requiredCount {
                    let index = Int(flat.required[slot])
                    if index >= values.count || values[index].isNull {
                        throw JSONStoreError.missingValue(file: file, entity: entity.name, reference: reference,
                                                          property: entity.properties[index].name)
                    }
                }
                let nodeIndex = Int32(truncatingIfNeeded: nodes.count)  // below `count`, checked above
                for index in 0..<min(flat.count, values.count) {
                    // A property's index, below the plan's count, which the plan keeps as Int32 too.
                    let property = Int32(truncatingIfNeeded: index)
                    switch (flat.kinds[index], values[index]) {
                    case (.toOne, .object(let id)):
                        let target = try Self.reference(id, entity, reference, index)
                        toOne.append(StoreFileDecoder.PendingReference(target: target, node: nodeIndex, property: property))
                    case (.toMany, .objects(let ids)) where !ids.isEmpty:
                        let start = pool.count
                        for id in ids { pool.append(try Self.reference(id, entity, reference, index)) }
                        // As the file lists them: an unordered relationship by reference.
                        if !flat.isOrdered[index], !zip(pool[start...], pool[(start + 1)...]).allSatisfy({ $0 < $1 }) {
                            pool[start...].sort()
                        }
                        toMany.append(StoreFileDecoder.PendingList(node: nodeIndex, property: property, start: start, count: ids.count))
                    default:
                        break
                    }
                }
                nodes.append(node)
                nodeEntities.append(Int32(truncatingIfNeeded: entity.index))  // an index among the model's entities
                nodeReferences.append(reference)
                maxReference = max(maxReference, reference)
            }
        }
        try ReferenceResolver.check(file: file, plan: plan, nodes: &nodes, nodeEntities: nodeEntities, nodeReferences: nodeReferences,
                                    maxReference: maxReference, toOne: &toOne, toMany: toMany, pool: &pool)
        if let violation = firstUniquenessViolation(groups, model: plan.model) { throw violation }
    }

    /// The reference a relationship's ID stands for in the file (as ``ObjectWriter`` writes it).
    private static func reference(_ id: ObjectID, _ entity: EntityPlan, _ source: Int64, _ index: Int) throws -> Int64 {
        guard !id.isTemporary, case .int(let reference) = id.referenceObject else {
            throw JSONStoreError.unencodableValue(entity: entity.name, reference: String(source), property: entity.properties[index].name,
                                                  reason: "it refers to \(id), which has no integer reference in this store")
        }
        return reference
    }

    /// The first pair of objects that share the values of a uniqueness constraint, as
    /// `AtomicStore.firstUniquenessViolation()` finds it in the loaded store: constraints in
    /// the order of the model's entities, objects by reference (then entity name).
    static func firstUniquenessViolation(_ groups: [Group], model: ObjectModel) -> GraphError? {
        for owner in model.entities {
            for constraint in owner.uniquenessConstraints where !constraint.isEmpty {
                var members: [(reference: Int64, node: ObjectSnapshot)] = []
                for group in groups where group.entity.entity.isKind(of: owner) {
                    for (node, reference) in zip(group.nodes, group.references) { members.append((reference, node)) }
                }
                members.sort { a, b in
                    a.reference < b.reference || (a.reference == b.reference && a.node.objectID.entityName < b.node.objectID.entityName)
                }
                var seen: [[Value]: ObjectID] = [:]
                for (_, node) in members {
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
