import GraphCore
import JSONCore

/// The relationships that may still hold an object after it is deleted: those without an
/// inverse, and those whose inverse has the `noAction` delete rule (deleting the target
/// does not touch them). Such a reference reads as cleared (`null`, or left out of a
/// to-many list), as the store reads it back after a restart; the object keeps its version.
struct DanglingReferences: Sendable {
    /// By entity name: whether each property (at its index) may dangle.
    private let flags: [String: [Bool]]
    /// Entities with such relationships, by the entity names of their targets.
    private let holdersByTarget: [String: Set<String>]

    init(model: ObjectModel) {
        var flags: [String: [Bool]] = [:]
        var holders: [String: Set<String>] = [:]
        for entity in model.entities {
            let entityFlags = entity.properties.map { property -> Bool in
                guard case .relationship(let relationship) = property else { return false }
                guard let inverseName = relationship.inverse else { return true }
                guard let destination = model.entity(named: relationship.destination),
                      case .relationship(let inverse)? = destination.property(named: inverseName) else { return true }
                return inverse.deleteRule == .noAction
            }
            guard entityFlags.contains(true) else { continue }
            flags[entity.name] = entityFlags
            for (property, mayDangle) in zip(entity.properties, entityFlags) where mayDangle {
                guard case .relationship(let relationship) = property, let destination = model.entity(named: relationship.destination) else { continue }
                // The target may be an object of a sub-entity of the destination.
                for target in model.entities where target.isKind(of: destination) {
                    holders[target.name, default: []].insert(entity.name)
                }
            }
        }
        self.flags = flags
        holdersByTarget = holders
    }

    /// Whether the model has no such relationship (then there is nothing to do, ever).
    var isEmpty: Bool { flags.isEmpty }

    /// `snapshot` with references to objects that no longer exist cleared.
    func cleared(_ snapshot: ObjectSnapshot, exists: (ObjectID) -> Bool) -> ObjectSnapshot {
        guard let entityFlags = flags[snapshot.objectID.entity.name] else { return snapshot }
        var copy = snapshot
        for (index, mayDangle) in entityFlags.enumerated() where mayDangle && index < copy.values.count {
            switch copy.values[index] {
            case .object(let id) where !exists(id):
                copy.values[index] = .null
            case .objects(let ids) where !ids.allSatisfy(exists):
                copy.values[index] = .objects(ids.filter(exists))
            default:
                break
            }
        }
        return copy
    }

    /// The entities whose objects may refer to objects of `deleted` without being changed.
    func holders(ofDeleted deleted: some Sequence<ObjectID>) -> Set<String> {
        var result = Set<String>()
        for id in deleted { result.formUnion(holdersByTarget[id.entityName] ?? []) }
        return result
    }
}
