import GraphCore
import JSONCore

/// The relationships that may still hold an object after it is deleted: those without an
/// inverse, and those whose inverse has the `noAction` delete rule (deleting the target
/// does not touch them). Such a reference reads as cleared (`null`, or left out of a
/// to-many list), as the store reads it back after a restart; the object keeps its version.
/// The server's states hold such references cleared (``ReadState``), so that predicates,
/// indexes and answers see what a restarted server sees.
struct DanglingReferences: Sendable {
    /// By entity name: whether each property (at its index) may dangle.
    private let flags: [String: [Bool]]
    /// Entities with such relationships, by the entity names of their targets.
    private let holdersByTarget: [String: Set<String>]
    /// Entities with such relationships without an inverse, by the entity names of their
    /// targets: only reading all their objects finds those that refer to a deleted target.
    private let scannedHoldersByTarget: [String: Set<String>]
    /// By entity name: the indexes of its `noAction` relationships that have an inverse. A
    /// deleted object's values there list the objects still referring to it.
    private let listingSlots: [String: [Int]]

    init(model: ObjectModel) {
        var flags: [String: [Bool]] = [:]
        var holders: [String: Set<String>] = [:]
        var scanned: [String: Set<String>] = [:]
        var slots: [String: [Int]] = [:]
        for entity in model.entities {
            let listing = entity.properties.indices.filter { index in
                guard case .relationship(let relationship) = entity.properties[index] else { return false }
                return relationship.deleteRule == .noAction && relationship.inverse != nil
            }
            if !listing.isEmpty { slots[entity.name] = listing }
        }
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
                    if relationship.inverse == nil { scanned[target.name, default: []].insert(entity.name) }
                }
            }
        }
        self.flags = flags
        holdersByTarget = holders
        scannedHoldersByTarget = scanned
        listingSlots = slots
    }

    /// Whether objects of this entity may hold such references.
    func mayHold(entity name: String) -> Bool { flags[name] != nil }

    /// The objects that may still refer to `deleted` (its last snapshot) through a
    /// relationship whose inverse is `noAction`: those its inverse lists.
    func listedHolders(of deleted: ObjectSnapshot) -> [ObjectID] {
        guard let slots = listingSlots[deleted.objectID.entityName] else { return [] }
        var result: [ObjectID] = []
        for slot in slots where slot < deleted.values.count {
            switch deleted.values[slot] {
            case .object(let id): result.append(id)
            case .objects(let ids): result += ids
            default: break
            }
        }
        return result
    }

    /// The entities whose objects may refer to an object of `entity` through a relationship
    /// without an inverse (only reading them all finds which do).
    func scannedHolders(ofEntity entity: String) -> Set<String> {
        scannedHoldersByTarget[entity] ?? []
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
