/// The changes of one save, as a context hands them to its coordinator and stores.
///
/// Inserted objects carry temporary IDs (and relationship values may name other inserted
/// objects' temporary IDs); updated, deleted and locked objects carry the version the
/// context read, which the store checks (optimistic locking).
public struct SaveChangesRequest: Sendable {
    /// The objects inserted, with their temporary IDs and values.
    public var insertedObjects: [ObjectSnapshot]
    /// The objects changed, with their new values and the version the context read.
    public var updatedObjects: [ObjectSnapshot]
    /// The objects deleted, with the version the context read.
    public var deletedObjects: [ObjectSnapshot]
    /// Objects not changed but whose version must still be the one read.
    public var lockedObjects: [ObjectSnapshot]
    /// Who made the save, when, in which parts, and the versions its writers read
    /// (``CommitMetadata``): written by the store with the commit.
    public var metadata: CommitMetadata

    /// A request of the given changes (none by default).
    public init(
        insertedObjects: [ObjectSnapshot] = [],
        updatedObjects: [ObjectSnapshot] = [],
        deletedObjects: [ObjectSnapshot] = [],
        lockedObjects: [ObjectSnapshot] = [],
        metadata: CommitMetadata = CommitMetadata()
    ) {
        self.insertedObjects = insertedObjects
        self.updatedObjects = updatedObjects
        self.deletedObjects = deletedObjects
        self.lockedObjects = lockedObjects
        self.metadata = metadata
    }

    /// Whether the request holds no object at all.
    public var isEmpty: Bool {
        insertedObjects.isEmpty && updatedObjects.isEmpty && deletedObjects.isEmpty && lockedObjects.isEmpty
    }
}

/// What a store did with a save: the permanent IDs of the inserted objects, the new
/// versions of the inserted and updated ones, and the numbers of its commits.
public struct SaveResult: Sendable, Equatable {
    /// Temporary ID → permanent ID, for each inserted object.
    public var permanentIDs: [ObjectID: ObjectID]
    /// Permanent ID → new version, for updated objects (and any inserted object whose
    /// version is not 1). An object left out has the rule's version: 1 when inserted, the
    /// version it was read at + 1 when updated.
    public var versions: [ObjectID: Int64]
    /// The number of each commit the save made, in order: one per ``CommitMetadata/parts``
    /// entry (one when it has none) for a store that numbers its commits durably (a journal,
    /// a history table); empty for a store that does not number them, or a save that wrote nothing.
    public var sequences: [Int64]

    /// A result with the given permanent IDs, versions and commit numbers (none by default).
    public init(permanentIDs: [ObjectID: ObjectID] = [:], versions: [ObjectID: Int64] = [:], sequences: [Int64] = []) {
        self.permanentIDs = permanentIDs
        self.versions = versions
        self.sequences = sequences
    }

    mutating func merge(_ other: SaveResult) {
        permanentIDs.merge(other.permanentIDs) { $1 }
        versions.merge(other.versions) { $1 }
        sequences += other.sequences
    }
}
