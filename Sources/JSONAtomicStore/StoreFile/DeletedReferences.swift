import GraphCore

/// The references of objects deleted since the store was opened, so that the writer can
/// leave out relationships that still point at them.
///
/// A relationship without an inverse, or one whose inverse has the delete rule `noAction`,
/// keeps the ID of an object after that object is deleted (as in Core Data). Written to the
/// file, such a reference would be dangling, and the loader refuses dangling references: the
/// store would no longer open. The writer writes `null` (to-one) or leaves the reference out
/// (to-many) instead. References are never reused, so a reference in this set that has no
/// node is certainly gone; one whose node is back (a failed save rolled the deletion back)
/// is kept.
struct DeletedReferences: Sendable {
    private(set) var references: Set<Int64> = []

    var isEmpty: Bool { references.isEmpty }

    mutating func insert(_ nodes: [ObjectSnapshot]) {
        for node in nodes {
            if case .int(let reference) = node.objectID.referenceObject { references.insert(reference) }
        }
    }
}

/// What the writer asks about a reference: whether it points at a deleted object.
struct DanglingFilter: @unchecked Sendable {
    // @unchecked: `exists` reads the store's nodes, which do not change while a save writes
    // (the coordinator serializes store calls); the writer's threads only read.
    let deleted: Set<Int64>
    let exists: (ObjectID) -> Bool

    /// Whether `id`, whose integer reference is `reference`, names an object that is gone.
    @inline(__always)
    func isGone(_ id: ObjectID, reference: Int64) -> Bool {
        !deleted.isEmpty && deleted.contains(reference) && !exists(id)
    }
}
