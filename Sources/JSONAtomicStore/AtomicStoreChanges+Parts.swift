import GraphCore

extension AtomicStoreChanges {
    /// The changes split by the parts of their metadata (see ``CommitPart``): one set of
    /// changes per part, in order, each with the save's `nextReference`.
    func splitByParts() -> [AtomicStoreChanges] {
        let parts = metadata.parts
        guard parts.count > 1 else { return [self] }
        var inserted = [[ObjectSnapshot]](repeating: [], count: parts.count)
        var updated = inserted, deleted = inserted
        let owner = metadata.partIndexByObject()  // the first part naming an object wins
        func part(of node: ObjectSnapshot) -> Int { owner[node.objectID] ?? parts.count - 1 }
        for node in self.inserted { inserted[part(of: node)].append(node) }
        for node in self.updated { updated[part(of: node)].append(node) }
        for node in self.deleted { deleted[part(of: node)].append(node) }
        return parts.indices.map {
            AtomicStoreChanges(inserted: inserted[$0], updated: updated[$0], deleted: deleted[$0], nextReference: nextReference)
        }
    }
}
