/// What a save changed: the IDs of the objects inserted (permanent IDs), updated and deleted.
///
/// Another context merges it with ``ObjectContext/mergeChanges(from:)`` so its objects show
/// the new values.
public struct ContextDidSave: Sendable, Equatable {
    public var insertedObjectIDs: Set<ObjectID>
    public var updatedObjectIDs: Set<ObjectID>
    public var deletedObjectIDs: Set<ObjectID>

    public init(inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = []) {
        insertedObjectIDs = inserted
        updatedObjectIDs = updated
        deletedObjectIDs = deleted
    }

    public var isEmpty: Bool { insertedObjectIDs.isEmpty && updatedObjectIDs.isEmpty && deletedObjectIDs.isEmpty }
}
