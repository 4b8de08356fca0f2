import Foundation

/// One writer's share of a save that holds several writers' changes (a server's group
/// commit): a store that numbers its commits gives each part a number of its own (one
/// journal record, one history row), with the part's author.
///
/// The parts of one save must not share an object: each changed object belongs to the first
/// part that names it; an object the save changed that no part names belongs to the last part.
public struct CommitPart: Sendable, Equatable {
    /// The author of the part (the `client` of a connection's `hello`), if any.
    public var author: String?
    /// The objects the part inserted, changed or deleted, once each, in order.
    public var objects: [ObjectID]

    /// A part by `author` that changed `objects`.
    public init(author: String?, objects: [ObjectID] = []) {
        self.author = author
        self.objects = objects
    }
}

/// What a save says about itself, beside its changes: carried by ``SaveChangesRequest/metadata``
/// to the store, which writes it with the commit (a journal record's author and time, a
/// history row's).
///
/// ```swift
/// try context.save(metadata: CommitMetadata(author: "ann@example"))
/// ```
public struct CommitMetadata: Sendable, Equatable {
    /// The time the commit records (nil: the time of the write).
    public var time: Date?
    /// The writers' shares of the save (none: one commit without an author). A store that
    /// numbers its commits gives each part its own number (``SaveResult/sequences``).
    public var parts: [CommitPart]
    /// The versions the save's writers read of the objects they update or delete: a store
    /// that other writers share (``SharedDatabaseStore``) checks them in the commit's
    /// transaction, even for objects the save does not write; a store with one writer, whose
    /// versions were checked before the save, may leave them unchecked.
    public var readVersions: [ObjectID: Int64]
    /// The objects the save updates or deletes as its writers read them (the values before the
    /// commit): a store whose shared history records what each commit changed writes the values
    /// the save replaces (``CommittedObject/previous``), with which the other writers judge the
    /// commit on objects they do not hold. Empty: nothing is recorded but which objects changed.
    public var previousSnapshots: [ObjectID: ObjectSnapshot]

    /// Metadata of the given parts (none by default), time, read versions and previous values.
    public init(time: Date? = nil, parts: [CommitPart] = [], readVersions: [ObjectID: Int64] = [:],
                previousSnapshots: [ObjectID: ObjectSnapshot] = [:]) {
        self.time = time
        self.parts = parts
        self.readVersions = readVersions
        self.previousSnapshots = previousSnapshots
    }

    /// The metadata of one save by `author`: one part holding every object.
    public init(author: String?, time: Date? = nil) {
        self.init(time: time, parts: [CommitPart(author: author)])
    }

    /// The author of a commit of one part (nil for several, or none).
    public var soleAuthor: String? { parts.count == 1 ? parts[0].author : nil }

    /// For each object a part names, the index of the first part naming it (see ``CommitPart``).
    public func partIndexByObject() -> [ObjectID: Int] {
        var owner: [ObjectID: Int] = [:]
        for (index, part) in parts.enumerated().reversed() {
            for id in part.objects { owner[id] = index }
        }
        return owner
    }
}
