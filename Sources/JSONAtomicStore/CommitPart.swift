import GraphCore

/// One writer's share of a save that holds several writers' changes (a server's group
/// commit): the save then appends one journal record per part, with the part's author and
/// its own sequence number, in one write and one `fdatasync`
/// (``JSONAtomicStore/nextCommitParts``).
///
/// The parts of one save must not share an object: each changed object goes to the record of
/// the first part that names it, an object no part names to the last part's record.
public struct CommitPart: Sendable {
    /// The author written in the part's record (none when nil).
    public var author: String?
    /// The objects the part inserted, changed or deleted.
    public var objects: Set<ObjectID>

    /// A part by `author` that changed `objects`.
    public init(author: String?, objects: Set<ObjectID>) {
        self.author = author
        self.objects = objects
    }
}

extension AtomicStoreChanges {
    /// The changes split by `parts` (see ``CommitPart``): one set of changes per part, in
    /// order, each with the save's `nextReference`.
    func split(by parts: [CommitPart]) -> [AtomicStoreChanges] {
        guard parts.count > 1 else { return [self] }
        var inserted = [[CacheNode]](repeating: [], count: parts.count)
        var updated = inserted, deleted = inserted
        func part(of node: CacheNode) -> Int {
            parts.firstIndex { $0.objects.contains(node.objectID) } ?? parts.count - 1
        }
        for node in self.inserted { inserted[part(of: node)].append(node) }
        for node in self.updated { updated[part(of: node)].append(node) }
        for node in self.deleted { deleted[part(of: node)].append(node) }
        return parts.indices.map {
            AtomicStoreChanges(inserted: inserted[$0], updated: updated[$0], deleted: deleted[$0], nextReference: nextReference)
        }
    }
}
