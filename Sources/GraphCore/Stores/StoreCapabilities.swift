import Foundation

// What a store can do beyond ``PersistentStore``, as protocols: a server (or any user of a
// store) asks `store as? any JournaledStore` instead of naming a store type, so that it works
// with every store that has the capability, and links none it does not use. They live in
// GraphCore because they are properties of stores, not of a server: a journal and a shared
// history are store concepts, with no file or socket in their interface.

/// A store that numbers its commits durably, writes each as a journal record beside a
/// snapshot, keeps the newest records as its history, and can write its snapshot off the
/// saving thread (a checkpoint in three steps). The JSON store is one.
public protocol JournaledStore: AnyObject {
    /// The number of the last durable commit (0 for a new store); it survives restarts.
    var commitSequence: Int64 { get }
    /// The journal's path, as named in messages.
    var journalPath: String { get }
    /// The bytes of the journal: what the next checkpoint folds into the snapshot.
    var journalByteCount: Int { get }
    /// The bytes of a torn last record cut off when the store was opened (0 when none).
    var recoveredTornBytes: Int { get }
    /// The path of the file that keeps the newest records past a checkpoint, as named in messages.
    var historyPath: String { get }
    /// Why the last checkpoint's records were not kept in that file (nil when they were).
    var lastHistoryError: (any Error)? { get }
    /// The newest journal records the store keeps (its history, then its journal), oldest first,
    /// as the journal holds them (docs/FILE_FORMAT.md).
    func historyRecordBytes() throws -> [UInt8]
    /// Step 1 of a checkpoint, on the saving thread: notes the last commit. Then call the
    /// checkpoint's ``SnapshotCheckpoint/writeSnapshot`` on any thread, and end with
    /// ``finishCheckpoint(_:)`` (or ``abandonCheckpoint(_:)`` when writing failed).
    func beginSnapshotCheckpoint() throws -> SnapshotCheckpoint
    /// Step 3, on the saving thread: the journal keeps only the records after the snapshot.
    func finishCheckpoint(_ checkpoint: SnapshotCheckpoint) throws
    /// Gives up a checkpoint whose snapshot could not be written.
    func abandonCheckpoint(_ checkpoint: SnapshotCheckpoint)
}

/// The store options a ``JournaledStore`` reads (``StoreOptions/values``); a store without a
/// journal ignores them.
public enum JournaledStoreOptions {
    /// The journal size, in bytes, past which a save checkpoints the store; `"0"`: never (its
    /// user checkpoints it, as a server does off its writer's path).
    public static let checkpointBytes = "journalCheckpointBytes"
    /// How many of the newest journal records checkpoints keep as the store's history.
    public static let historyRecords = "historyRecords"
}

/// A checkpoint begun by ``JournaledStore/beginSnapshotCheckpoint()``: a value any thread may
/// use to write the snapshot, while the store saves on.
public struct SnapshotCheckpoint: Sendable {
    /// The last commit the snapshot holds: the objects given to ``writeSnapshot`` must be the
    /// store's every object as it was right after this commit.
    public let commitSequence: Int64
    /// Step 2: writes the snapshot from those objects (on any thread; touches no state of the store).
    public let writeSnapshot: @Sendable (_ objects: AnySequence<ObjectSnapshot>) throws -> Void
    /// The store's own record of the checkpoint, for steps 2 and 3.
    public let ticket: any Sendable

    /// A checkpoint that stops at `commitSequence`, written by `writeSnapshot`, known to its store by `ticket`.
    public init(commitSequence: Int64, ticket: any Sendable,
                writeSnapshot: @escaping @Sendable (_ objects: AnySequence<ObjectSnapshot>) throws -> Void) {
        self.commitSequence = commitSequence
        self.ticket = ticket
        self.writeSnapshot = writeSnapshot
    }
}

/// A store whose database other writers (other servers) share: every save that carries parts
/// (``CommitMetadata/parts``) appends one numbered row per part to a history all writers share,
/// in the save's transaction, and checks ``CommitMetadata/readVersions`` there; the save's
/// ``SaveResult/sequences`` are those numbers. A writer catches up with the others' commits
/// through a ``CommitHistoryReader``. The PostgreSQL store is one.
public protocol SharedDatabaseStore: AnyObject {
    /// Where the database is, for messages and logs (without a password).
    var locationDescription: String { get }
    /// A reader of the shared history, on connections of its own, usable from any thread.
    func openCommitHistory() throws -> any CommitHistoryReader
    /// The objects with these IDs as the database holds them now, read together (a statement
    /// per table, not one per object); an ID with no object (deleted) is left out. Called
    /// where the store's other calls are (its coordinator's thread).
    func committedSnapshots(of ids: [ObjectID]) throws -> [ObjectSnapshot]
    /// A reader of the database's objects on a connection of its own, for a thread other than
    /// the store's (a server's reader threads, whose reads miss its cache). Nothing is sent
    /// until its first read.
    func openObjectReader() throws -> any DatabaseObjectReader
    /// A fetcher of the database's objects for one event loop (or another serial executor), on
    /// at most `connections` connections of its own, made as they are needed (nothing is sent
    /// until its first fetch).
    func openFetcher(connections: Int) throws -> any DatabaseFetcher
}

/// Fetches (and reads of objects by ID) of a shared database made without a thread that waits
/// for them: the statement is sent and its rows read within the caller's task. A server runs that task on the event loop
/// that serves the client, where the fetcher makes its connections to the database too, so that
/// a fetch crosses no thread (a reader thread waiting for the database costs a thread switch at
/// each step: `docs/SCALING.md`).
///
/// Used from one serial executor: its calls interleave only where they wait for the database.
public protocol DatabaseFetcher: AnyObject, Sendable {
    /// The answer of `request` when one statement gives it whole (its predicate, and its sort and
    /// page, said in SQL), and the number of the last commit it may hold (it holds no later one);
    /// nil when one statement cannot (the caller answers it with a ``DatabaseObjectReader``).
    func fetchInOneStatement(_ request: FetchRequest) async throws -> (result: StoreFetchResult, through: Int64)?
    /// The objects with these IDs, as ``DatabaseObjectReader/committedSnapshots(of:)`` reads them.
    func committedSnapshots(of ids: [ObjectID]) async throws -> (snapshots: [ObjectSnapshot], through: Int64)
    /// The answers of many fetches `key == value` of `entityName` and its subentities, one for
    /// each of `values` in their order, read together (one statement): for each value the
    /// objects ``fetchInOneStatement(_:)`` gives for that fetch alone (a string attribute
    /// compared plainly, no sort, no page), and the number of the last commit they may hold.
    /// Nil when the fetcher cannot read them together (`key` is not a string attribute, …, or
    /// their rows take more than `resultBytesLimit` bytes together, as
    /// ``FetchRequest/resultBytesLimit`` counts them): the caller then fetches each alone.
    func fetchEqualities(entityName: String, key: String, values: [String], resultBytesLimit: Int?) async throws
        -> (objects: [[ObjectSnapshot]], through: Int64)?
    /// The objects of `request` (its predicate, and its sort and page, said in SQL; not a
    /// count) handed to `receive` a few rows at a time as the database sends them, each batch
    /// received before more rows are read; then the number of the last commit they may hold,
    /// and how the statement answered (as ``DatabaseObjectReader/explain(_:)`` says it). Nil
    /// when one statement cannot answer it (nothing was received). Never holds the result
    /// whole: its ``FetchRequest/resultBytesLimit`` is not applied. An error `receive` throws
    /// ends the statement and is thrown as it is.
    func streamInOneStatement(_ request: FetchRequest, receive: ([ObjectSnapshot]) async throws -> Void) async throws
        -> (through: Int64, plan: String)?
    /// Closes its connections; a fetch made afterwards opens new ones.
    func close()
}

extension DatabaseFetcher {
    /// None streamed: the caller finds the matches another way.
    public func streamInOneStatement(_ request: FetchRequest, receive: ([ObjectSnapshot]) async throws -> Void) async throws
        -> (through: Int64, plan: String)? {
        nil
    }

    /// None read together: each fetch alone.
    public func fetchEqualities(entityName: String, key: String, values: [String], resultBytesLimit: Int?) async throws
        -> (objects: [[ObjectSnapshot]], through: Int64)? {
        nil
    }
}

/// Reads a shared database's committed objects on a connection of its own, for one thread at
/// a time (a pool hands it to one reader after another). Objects are read as the database
/// holds them when the statement runs.
public protocol DatabaseObjectReader: AnyObject {
    /// The objects with these IDs (an ID may name the object's entity or one of its ancestors),
    /// read together (an ID with no object is left out), and the number of the last commit they
    /// may hold: they hold no later one (and every one up to it).
    func committedSnapshots(of ids: [ObjectID]) throws -> (snapshots: [ObjectSnapshot], through: Int64)
    /// The objects (or IDs, or the count) a fetch request asks for, as the store answers it
    /// (``PersistentStore/fetch(_:)``: sorted and paged when ``StoreFetchResult/isSortedAndPaged``),
    /// and the number of the last commit they may hold: they hold no later one.
    func fetch(_ request: FetchRequest) throws -> (result: StoreFetchResult, through: Int64)
    /// How the store answers `request`, in one line (its SQL, and what is left to GraphCore).
    func explain(_ request: FetchRequest) throws -> String
    /// Closes its connection; reads made afterwards open a new one.
    func close()
}

/// The commits of a shared database, read by one of the writers that share it.
public protocol CommitHistoryReader: AnyObject, Sendable {
    /// The number of the last commit (0 before the first).
    func latestSequence() throws -> Int64
    /// Up to `limit` commits after number `after` (and up to `through`, when given), in order.
    func commits(after: Int64, through: Int64?, limit: Int) throws -> [StoreCommit]
    /// Calls `onCommit` (on a thread of the reader's: it must return at once) after each commit
    /// any writer makes, with the commit's last number when known, while the listening connection
    /// lasts (``isListening``); call again to listen again.
    func listenForCommits(_ onCommit: @escaping @Sendable (_ last: Int64?) -> Void) throws
    /// Whether ``listenForCommits(_:)`` still listens.
    var isListening: Bool { get }
    /// Closes every connection; calls made afterwards fail.
    func close()
}

/// One commit of a shared history: its number, time, author and what it changed.
public struct StoreCommit: Sendable, Equatable {
    /// Its number: commits are numbered 1, 2, 3, … in commit order, by every writer together.
    public let sequence: Int64
    /// When it was made (milliseconds).
    public let time: Date
    /// Who made it, if known.
    public let author: String?
    /// The objects it changed.
    public let objects: [CommittedObject]

    /// A commit numbered `sequence`, made at `time` by `author`, that changed `objects`.
    public init(sequence: Int64, time: Date, author: String?, objects: [CommittedObject]) {
        self.sequence = sequence
        self.time = time
        self.author = author
        self.objects = objects
    }
}

/// One object a commit changed: its concrete entity, its reference and what happened to it.
public struct CommittedObject: Sendable, Equatable {
    /// What happened to an object (its letter in a history row).
    public enum Kind: String, Sendable {
        case inserted = "i", updated = "u", deleted = "d"
    }

    /// The object's concrete entity.
    public var entity: String
    /// The reference in its ID.
    public var reference: Int64
    /// What happened to it.
    public var kind: Kind
    /// What it held before the commit, as the commit's writer recorded it (nil: not recorded,
    /// as for an inserted object, or a writer that records none).
    public var previous: PreviousValues?

    /// An object of `entity` with `reference` that a commit changed as `kind` says, holding
    /// `previous` before it.
    public init(entity: String, reference: Int64, kind: Kind, previous: PreviousValues? = nil) {
        self.entity = entity
        self.reference = reference
        self.kind = kind
        self.previous = previous
    }
}
