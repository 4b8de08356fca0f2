/// What a save changed: the IDs of the objects inserted (permanent IDs), updated and deleted.
///
/// Another context merges it with ``ObjectContext/mergeChanges(from:)`` so its objects show
/// the new values.
///
/// The IDs are kept as lists in save order (``inserted``, ``updated``, ``deleted``, each ID
/// once): a save of a million objects should not pay for hashing them. The `…ObjectIDs`
/// sets are made from the lists when asked for.
public struct ContextDidSave: Sendable, Equatable {
    public var inserted: [ObjectID]
    public var updated: [ObjectID]
    public var deleted: [ObjectID]

    public init(inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = []) {
        self.inserted = Array(inserted)
        self.updated = Array(updated)
        self.deleted = Array(deleted)
    }

    public var insertedObjectIDs: Set<ObjectID> {
        get { Set(inserted) }
        set { inserted = Array(newValue) }
    }

    public var updatedObjectIDs: Set<ObjectID> {
        get { Set(updated) }
        set { updated = Array(newValue) }
    }

    public var deletedObjectIDs: Set<ObjectID> {
        get { Set(deleted) }
        set { deleted = Array(newValue) }
    }

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Equal when the same IDs were inserted, updated and deleted, in whatever order.
    public static func == (lhs: ContextDidSave, rhs: ContextDidSave) -> Bool {
        lhs.insertedObjectIDs == rhs.insertedObjectIDs && lhs.updatedObjectIDs == rhs.updatedObjectIDs
            && lhs.deletedObjectIDs == rhs.deletedObjectIDs
    }
}
