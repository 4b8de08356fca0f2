/// What one save changed in an ``AtomicStore``'s nodes, handed to
/// ``AtomicStore/save(changes:)`` after the nodes were changed: a store that writes
/// incrementally (a journal) writes these, instead of every node.
///
/// The nodes are the store's own, as they are after the save: `inserted` with version 1,
/// `updated` with their new values and versions. `updated` holds every object the save
/// changed, including those changed only by inverse relationships and delete rules (the
/// context sends them as updated objects). `deleted` holds the nodes just removed (cascades
/// included), as they were.
public struct AtomicStoreChanges {
    /// Nodes of newly inserted objects, with their permanent IDs.
    public let inserted: [ObjectSnapshot]
    /// Nodes of changed objects, with their new values and versions.
    public let updated: [ObjectSnapshot]
    /// Nodes of removed objects.
    public let deleted: [ObjectSnapshot]
    /// The store's ``AtomicStore/nextReference`` after the save.
    public let nextReference: Int64
    /// Work of the same save (taking it into the store's fetch indexes) that a store may run on
    /// the saving thread while it waits for its disk; when it does not, the caller runs it after
    /// the write. Running it twice does nothing more. It only reads the nodes. Nil when there is
    /// none, or too little to be worth another thread's wake-up.
    public let whileWriting: (() -> Void)?
    /// The save's metadata (its author, time and parts), from ``SaveChangesRequest/metadata``.
    public let metadata: CommitMetadata

    /// Changes made of these nodes.
    public init(inserted: [ObjectSnapshot], updated: [ObjectSnapshot], deleted: [ObjectSnapshot], nextReference: Int64,
                whileWriting: (() -> Void)? = nil, metadata: CommitMetadata = CommitMetadata()) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.nextReference = nextReference
        self.whileWriting = whileWriting
        self.metadata = metadata
    }
}
