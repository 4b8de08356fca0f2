import Foundation
import GraphCore
import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// A store kept in a JSON snapshot file plus an append-only journal beside it
/// (`docs/FILE_FORMAT.md`): opening reads the snapshot and replays the journal; each save
/// appends one record of what it changed to the journal and `fdatasync`s it, at a cost that
/// depends on the save, not on the store's size; a checkpoint writes a new snapshot
/// (atomically and durably) and empties the journal. Registered as the store type `"JSON"`:
///
/// ```swift
/// JSONAtomicStore.register()
/// let coordinator = StoreCoordinator(model: model)
/// try coordinator.addPersistentStore(type: "JSON", at: URL(fileURLWithPath: "data/music.json"))
/// ```
///
/// - Opening a path that does not exist makes a new, empty store; the snapshot file (with no
///   objects) is written at the first save, whose record then goes to the journal. The
///   directory must exist.
/// - The journal is `<store file>-journal`. The store checkpoints by itself when the journal
///   passes ``journalCheckpointBytesOption`` (`"journalCheckpointBytes"`, default 64 MiB; `"0"`
///   turns that off) and when it is removed from its coordinator; ``checkpoint()`` does it on
///   demand, and ``beginCheckpoint()`` / ``writeSnapshot(_:objects:)`` /
///   ``finishCheckpoint(_:)`` let a server write the snapshot on another thread while saves go on.
/// - Each journal record carries its CRC-32C and must meet a strict schema (``JournalFormat``;
///   journals written before checksums still open, checked against the schema). A torn last
///   record (an incomplete last line: a crash during an append) is cut off when the store is
///   opened and its size reported in ``recoveredTornBytes``; a complete record that fails its
///   checksum or the schema, anywhere, or a gap in the commit sequence, is refused with
///   ``JSONStoreError/invalidJournal(file:offset:reason:)``.
/// - The path is resolved to the file's real path first (symlinks, `..`): the lock is taken
///   and every save written there, so a symlink to a store stays a symlink, and the store
///   opened through a symlink and through its real path meets one lock.
/// - While open for writing the store holds an exclusive lock (`<real file>.lock`); another
///   process, or another open in this one, gets ``JSONStoreError/storeInUse(path:processID:)``.
///   The lock is released when the store is removed from its coordinator or deallocated.
/// - A store file with more than one hard link is refused for writing
///   (``JSONStoreError/unsafeFile(path:reason:)``): a save replaces the file with a new one,
///   which would leave the other names on the old data. Copy the file instead of linking it,
///   or open it read-only.
/// - New store and lock files are created 0600 (owner only); the option
///   ``fileModeOption`` (`"fileMode"`: `"600"`, `"640"` or `"660"`) shares them with the
///   group. A save keeps the mode (and, where the process may, the owner) of the file it
///   replaces.
/// - `StoreOptions(isReadOnly: true)` opens without the lock and refuses to save.
/// - A file that fails to load is never overwritten: the store refuses to save.
open class JSONAtomicStore: AtomicStore, @unchecked Sendable {
    // Sendable for the same reason as every store: its coordinator serializes all calls,
    // and the mutable state below is touched only from those calls (and deinit).

    /// The store type name, `"JSON"`.
    public static let storeType = "JSON"

    /// Registers this class as the store type `"JSON"`.
    public static func register() {
        StoreRegistry.register(JSONAtomicStore.self, as: storeType)
    }

    /// The name of the store option giving the mode of new store and lock files, in octal:
    /// `"600"` (the default), `"640"` or `"660"`; no other bits are allowed.
    public static let fileModeOption = "fileMode"

    /// The path of the store file, as given.
    public let path: String
    /// The real path of the store file (symlinks and `..` resolved): where it is locked,
    /// read and written.
    public let realPath: String
    /// The mode of new store and lock files.
    let newFileMode: mode_t
    private var lock: StoreFileLock?
    var loadFailed = false
    private var cachedPlan: ModelPlan?
    var deletedReferences = DeletedReferences()

    /// The name of the store option giving the journal size, in bytes, past which a save
    /// checkpoints the store (in-process use); `"0"` turns automatic checkpoints off.
    public static let journalCheckpointBytesOption = JournaledStoreOptions.checkpointBytes
    /// The journal size past which a save checkpoints, unless the option says otherwise: 64 MiB.
    public static let defaultJournalCheckpointBytes = 64 << 20

    /// The path of the journal, as named in messages: ``path`` + `"-journal"`.
    public var journalPath: String { path + "-journal" }
    /// The sequence number of the last durable commit: 0 for a new store, +1 per save. It
    /// survives restarts (the snapshot's `"commitSequence"` and the journal's records).
    public internal(set) var commitSequence: Int64 = 0
    /// The bytes of the journal: what the next checkpoint folds into the snapshot.
    public var journalByteCount: Int { journal.length }
    /// The bytes of a torn last journal record cut off when the store was opened (0 when none).
    public internal(set) var recoveredTornBytes = 0
    /// The journal records applied when the store was opened.
    public internal(set) var replayedRecordCount = 0
    /// The error of the last automatic checkpoint, if it failed (the save it followed was
    /// durable all the same; the journal keeps growing until a checkpoint succeeds).
    public internal(set) var lastCheckpointError: (any Error)?
    /// Why the last checkpoint's records are not in the history file (``lastHistoryError``).
    var historyError: (any Error)?

    let journal: JournalWriter
    let checkpointThreshold: Int
    /// The journal records checkpoints keep in the history file (``historyRecordsOption``).
    let historyLimit: Int
    /// Whether the snapshot file exists (written at the first save of a new store).
    var snapshotExists = false
    /// The metadata the snapshot file holds; a save after a metadata change checkpoints.
    var persistedMetadata: StoreMetadata?
    /// The checkpoint begun and not finished, and how many were begun.
    var checkpointInFlight: Int?
    var checkpointsBegun = 0

    /// Opens the store at `url` (a file URL): checks the directory and takes the lock.
    /// Reading happens in `loadMetadata()`, called by the coordinator.
    public required init(coordinator: StoreCoordinator, configurationName: String?, url: URL?, options: StoreOptions) throws {
        guard let url, url.isFileURL else { throw JSONStoreError.notAFileURL(url?.absoluteString ?? "no URL") }
        path = url.path
        realPath = try StorePath.resolve(url.path)
        newFileMode = try Self.fileMode(from: options)
        checkpointThreshold = try Self.checkpointThreshold(from: options)
        historyLimit = try Self.historyRecordLimit(from: options)
        journal = JournalWriter(path: realPath + "-journal", length: 0, newFileMode: newFileMode)
        try super.init(coordinator: coordinator, configurationName: configurationName, url: url, options: options)
        metadata.storeType = Self.storeType
        metadata.storeIdentifier = UUID().uuidString.lowercased()
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw JSONStoreError.missingDirectory(store: path, directory: directory)
        }
        if !options.isReadOnly {
            lock = try StoreFileLock.acquire(storePath: realPath, mode: newFileMode)
            do {
                try Self.checkWritable(realPath)
            } catch {
                lock?.release()
                throw error
            }
            DurableFile.removeLeftovers(of: realPath)
            DurableFile.removeLeftovers(of: journal.path)
            DurableFile.removeLeftovers(of: realPath + "-history")
        }
    }

    /// Reads ``journalCheckpointBytesOption``: 64 MiB when absent, 0 for never.
    static func checkpointThreshold(from options: StoreOptions) throws -> Int {
        guard let text = options.values[journalCheckpointBytesOption] else { return defaultJournalCheckpointBytes }
        guard let bytes = Int(text), bytes >= 0 else {
            throw JSONStoreError.invalidOption(name: journalCheckpointBytesOption, value: text,
                                               reason: "expected a number of bytes (0 or more; 0 turns automatic checkpoints off)")
        }
        return bytes
    }

    /// Reads ``fileModeOption``: 0600 when absent.
    static func fileMode(from options: StoreOptions) throws -> mode_t {
        guard let text = options.values[fileModeOption] else { return DurableFile.defaultMode }
        guard let mode = mode_t(text, radix: 8) else {
            throw JSONStoreError.invalidOption(name: fileModeOption, value: text, reason: "expected an octal mode such as 600 or 640")
        }
        guard mode & 0o600 == 0o600, mode & ~mode_t(0o660) == 0 else {
            throw JSONStoreError.invalidOption(name: fileModeOption, value: text,
                                               reason: "the owner must read and write, others get nothing: use 600, 640 or 660")
        }
        return mode
    }

    /// Refuses a store file that a save would damage: one that is not a regular file, or
    /// that has other hard links (the rename of a save would leave them on the old data).
    static func checkWritable(_ realPath: String) throws {
        var info = stat()
        guard lstat(realPath, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw JSONStoreError.unsafeFile(path: realPath, reason: "not a regular file")
        }
        if info.st_nlink > 1 {
            throw JSONStoreError.unsafeFile(
                path: realPath,
                reason: "the store file has \(info.st_nlink) hard links; a save replaces it with a new file and the other names "
                    + "would keep the old data: copy the file instead of linking it, or open it read-only")
        }
    }

    deinit { lock?.release() }

    /// Checkpoints (when the journal holds anything) and releases the lock (called when the
    /// coordinator removes the store). A failed checkpoint loses nothing: the journal stays.
    open override func willRemove() {
        if !options.isReadOnly, !loadFailed, lock != nil, checkpointInFlight == nil,
           journal.length > 0 || (snapshotExists && persistedMetadata != metadata) {
            do { try checkpoint() } catch { lastCheckpointError = error }
        }
        journal.close()
        lock?.release()
        lock = nil
    }

    func plan() throws -> ModelPlan {
        guard let model else { throw GraphError.store("store \(path) has no coordinator (and so no model)") }
        if let cachedPlan, cachedPlan.model === model { return cachedPlan }
        let plan = ModelPlan(model: model)
        cachedPlan = plan
        return plan
    }

    // MARK: - Loading

    /// Reads the whole file into snapshots; a missing file is a new, empty store.
    open override func load() throws {
        // Saves that take fetch indexes in hand their `fdatasync` to this thread: started here,
        // at the opening thread's priority.
        if !options.isReadOnly, keepsFetchIndexes {
            FileSyncThread.shared.prepare()
        }
        do {
            try loadFile()
        } catch {
            loadFailed = true
            throw error
        }
    }

    private func loadFile() throws {
        let decoder = StoreFileDecoder(file: path, plan: try plan(), store: self)
        let replayed: JournalReader.Result
        let growth = HeapGrowth.large()
        defer { growth.restore() }
        do {
            let descriptor = open(realPath, O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 {
                defer { close(descriptor) }
                var info = stat()
                let size = fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
                decoder.reserve(forFileSize: size)
                try StoreFileReader.read(descriptor, size: size, path: path, into: decoder)
                decoder.trace.mark("after the ranges")
                snapshotExists = true
            } else if errno != ENOENT {
                throw JSONStoreError.io(path: path, operation: "open", errno: errno)
            }
            replayed = try replayJournal(into: decoder)
            decoder.trace.mark("journal: apply")
            guard snapshotExists else { return }
            try ReferenceResolver.resolve(decoder)
            // The snapshots are final once their references are resolved: the store's tables
            // take them then (the decoder's array let go of first, so that they move in).
            let snapshots = decoder.nodes
            decoder.nodes = []
            removeAllCacheNodes()
            addCacheNodes(snapshots)
            decoder.trace.mark("adding")
        }

        metadata = StoreMetadata(
            storeType: metadata.storeType,
            storeIdentifier: decoder.storeUUID ?? metadata.storeIdentifier,
            entityVersionHashes: decoder.entityVersionHashes ?? [:],
            modelVersionHash: decoder.modelVersionHash,
            userInfo: decoder.userInfo)
        persistedMetadata = metadata
        // One past the largest reference, saturated: a file holding reference Int64.max loads,
        // and leaves no reference for an insert (which then fails with a clear error).
        nextReference = max(decoder.fileNextReference ?? 1, StoreFileFormat.reference(after: decoder.maxReference),
                            replayed.nextReference)
        commitSequence = max(decoder.commitSequence, replayed.lastSequence)
        recoveredTornBytes = replayed.tornBytes
        replayedRecordCount = replayed.appliedRecords
        if replayed.tornBytes > 0, !options.isReadOnly { try journal.truncate(to: replayed.goodLength) }
    }

    /// Reads the journal's records into `decoder` after the snapshot and applies them.
    private func replayJournal(into decoder: StoreFileDecoder) throws -> JournalReader.Result {
        guard let (descriptor, size) = try DurableFile.openRegularFile(journal.path, shown: journalPath, named: "the journal") else {
            return JournalReader.Result()
        }
        defer { close(descriptor) }
        if size > 0, !snapshotExists { throw JSONStoreError.journalWithoutSnapshot(journal: journalPath, store: path) }
        let snapshotNodes = decoder.nodes.count
        let replay = JournalReplay()
        decoder.file = journalPath
        defer { decoder.file = path }
        let result: JournalReader.Result
        let pieces = JournalPieces.pieceCount(forSize: size)
        if pieces > 1 {
            // A large journal: read whole, and its pieces parsed on every core.
            let file = try FileBuffer(descriptor, size: size, path: journalPath)
            defer { file.deallocate() }
            decoder.trace.mark("journal: read")
            result = try JournalPieces(path: journalPath, decoder: decoder, replay: replay,
                                       baseSequence: decoder.commitSequence).read(file, pieces: pieces)
        } else {
            result = try JournalReader(path: journalPath, decoder: decoder, replay: replay,
                                       baseSequence: decoder.commitSequence).read(descriptor)
        }
        decoder.trace.mark("journal: parse")
        try replay.apply(to: decoder, snapshotNodes: snapshotNodes, journal: journalPath)
        journal.length = result.goodLength
        journal.format = result.format
        return result
    }

    // MARK: - Saving

    open override func willRemoveCacheNodes(_ nodes: [ObjectSnapshot]) {
        super.willRemoveCacheNodes(nodes)
        deletedReferences.insert(nodes)
    }

    /// Appends one journal record of what the save changed and `fdatasync`s it; the snapshot
    /// is not rewritten, so a save costs what it changes. A new store first gets its snapshot
    /// file (without objects); a save after a change of ``PersistentStore/metadata``
    /// checkpoints instead; past ``journalCheckpointBytesOption`` the save is followed by a
    /// checkpoint. A failed append leaves the journal as it was (and the nodes are rolled back).
    open override func save(changes: AtomicStoreChanges) throws {
        _ = try appendCommit(changes)
    }

    /// ``save(changes:)``, returning the sequence numbers of the records appended: one per
    /// ``CommitPart`` of the save's ``AtomicStoreChanges/metadata`` when it holds several (each
    /// with its part's author, in one write and one `fdatasync`), else one.
    open override func commit(changes: AtomicStoreChanges) throws -> [Int64] {
        try appendCommit(changes)
    }

    /// Writes the whole store: a checkpoint (a new snapshot file, then an empty journal).
    open override func save() throws {
        try checkpoint()
    }
}
