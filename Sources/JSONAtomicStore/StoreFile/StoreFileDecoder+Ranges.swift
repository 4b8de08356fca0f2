import GraphCore

/// A decoder of one range of a store file's objects, and how its output joins the decoder of
/// the whole file (`StoreFileRanges`).
extension StoreFileDecoder {
    /// A decoder for a range of the objects of `entity`, parsed as a JSON array of them
    /// (`[` + the range + `]`): it starts where the array of the entity begins.
    static func forRange(of entity: EntityPlan, file: String, plan: ModelPlan, store: AtomicStore,
                         byteCount: Int) -> StoreFileDecoder {
        let decoder = StoreFileDecoder(file: file, plan: plan, store: store)
        decoder.state = .objectsValue(entity.index)
        decoder.reserve(forFileSize: byteCount)
        return decoder
    }

    /// Whether a range decoder read whole objects of its entity, and nothing else: its array
    /// is closed and nothing is pending.
    var finishedRange: Bool {
        if case .objects = state, afterSkip == nil { return true }
        return false
    }

    /// Whether the decoder stands between two objects of `entity`'s array, after one (the
    /// input fed so far ends with its `}`): where a range decoded elsewhere can follow.
    func isBetweenObjects(of entity: EntityPlan) -> Bool {
        guard case .objectList = state, afterSkip == nil, self.entity === entity else { return false }
        return true
    }

    /// Releases the `"storeUUID"` held while ranges were decoded on other threads.
    func releaseStoreIdentifier() {
        holdsStoreIdentifier = false
        if let held = heldStoreIdentifier { store.metadata.storeIdentifier = held }
        heldStoreIdentifier = nil
    }

    /// Appends what a range decoder made, as if this decoder had read the range itself:
    /// nodes in file order, pending links renumbered to the joined arrays.
    func append(_ range: StoreFileDecoder) {
        let nodeBase = Int32(truncatingIfNeeded: nodes.count)
        let poolBase = referencePool.count
        if identifierOfNodes == nil { identifierOfNodes = range.identifierOfNodes }
        // The range's snapshots moved over, not copied (a copy retains every field, and the
        // range's array then releases them): taken from the end of its array reversed.
        var moved = range.nodes
        range.nodes = []
        moved.reverse()
        nodes.reserveCapacity(nodes.count + moved.count)
        while let node = moved.popLast() { nodes.append(node) }
        nodeEntities.append(contentsOf: range.nodeEntities)
        nodeReferences.append(contentsOf: range.nodeReferences)
        toOne.reserveCapacity(toOne.count + range.toOne.count)
        for item in range.toOne {
            toOne.append(PendingReference(target: item.target, node: item.node + nodeBase, property: item.property))
        }
        for list in range.toMany {
            toMany.append(PendingList(node: list.node + nodeBase, property: list.property, start: list.start + poolBase,
                                      count: list.count))
        }
        referencePool.append(contentsOf: range.referencePool)
        maxReference = max(maxReference, range.maxReference)
        rangesJoined += 1
    }
}
