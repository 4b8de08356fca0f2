/// What a save changed: the IDs of the objects inserted (permanent IDs), updated and deleted.
///
/// Another context merges it with ``ObjectContext/mergeChanges(from:)`` so its objects show
/// the new values.
///
/// The IDs are kept as lists in save order (``inserted``, ``updated``, ``deleted``, each ID
/// once): a save of a million objects should not pay for hashing them. The `…ObjectIDs`
/// sets are made from the lists when asked for.
public struct ContextDidSave: Sendable, Equatable {
    /// The permanent IDs of the objects the save inserted, in save order.
    public var inserted: [ObjectID]
    /// The IDs of the objects the save updated, in save order.
    public var updated: [ObjectID]
    /// The IDs of the objects the save deleted, in save order.
    public var deleted: [ObjectID]

    /// A notification of the given inserted, updated and deleted IDs (none by default).
    public init(inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = []) {
        self.inserted = Array(inserted)
        self.updated = Array(updated)
        self.deleted = Array(deleted)
    }

    /// ``inserted`` as a set; setting it replaces the list.
    public var insertedObjectIDs: Set<ObjectID> {
        get { Set(inserted) }
        set { inserted = Array(newValue) }
    }

    /// ``updated`` as a set; setting it replaces the list.
    public var updatedObjectIDs: Set<ObjectID> {
        get { Set(updated) }
        set { updated = Array(newValue) }
    }

    /// ``deleted`` as a set; setting it replaces the list.
    public var deletedObjectIDs: Set<ObjectID> {
        get { Set(deleted) }
        set { deleted = Array(newValue) }
    }

    /// Whether the save changed nothing.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Equal when the same IDs were inserted, updated and deleted, in whatever order.
    public static func == (lhs: ContextDidSave, rhs: ContextDidSave) -> Bool {
        lhs.insertedObjectIDs == rhs.insertedObjectIDs && lhs.updatedObjectIDs == rhs.updatedObjectIDs
            && lhs.deletedObjectIDs == rhs.deletedObjectIDs
    }
}
