import Foundation
import GraphCore
#if canImport(Glibc)
import Glibc
#endif

/// A store kept in one JSON file (`docs/FILE_FORMAT.md`), read whole when opened and
/// written whole, atomically and durably, at each save. Registered as the store type
/// `"JSON"`:
///
/// ```swift
/// JSONAtomicStore.register()
/// let coordinator = StoreCoordinator(model: model)
/// try coordinator.addPersistentStore(type: "JSON", at: URL(fileURLWithPath: "data/music.json"))
/// ```
///
/// - Opening a path that does not exist makes a new, empty store; the file is written at the
///   first save. The directory must exist.
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
    private let newFileMode: mode_t
    private var lock: StoreFileLock?
    private var loadFailed = false
    private var cachedPlan: ModelPlan?
    private var deletedReferences = DeletedReferences()

    /// Opens the store at `url` (a file URL): checks the directory and takes the lock.
    /// Reading happens in `loadMetadata()`, called by the coordinator.
    public required init(coordinator: StoreCoordinator, configurationName: String?, url: URL?, options: StoreOptions) throws {
        guard let url, url.isFileURL else { throw JSONStoreError.notAFileURL(url?.absoluteString ?? "no URL") }
        path = url.path
        realPath = try StorePath.resolve(url.path)
        newFileMode = try Self.fileMode(from: options)
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
        }
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

    /// Releases the lock (called when the coordinator removes the store).
    open override func willRemove() {
        lock?.release()
        lock = nil
    }

    private func plan() throws -> ModelPlan {
        guard let model else { throw GraphError.store("store \(path) has no coordinator (and so no model)") }
        if let cachedPlan, cachedPlan.model === model { return cachedPlan }
        let plan = ModelPlan(model: model)
        cachedPlan = plan
        return plan
    }

    // MARK: - Loading

    /// Reads the whole file into cache nodes; a missing file is a new, empty store.
    open override func load() throws {
        do {
            try loadFile()
        } catch {
            loadFailed = true
            throw error
        }
    }

    private func loadFile() throws {
        let descriptor = open(realPath, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return }
            throw JSONStoreError.io(path: path, operation: "open", errno: errno)
        }
        defer { close(descriptor) }
        let decoder = StoreFileDecoder(file: path, plan: try plan(), store: self)
        var info = stat()
        let size = fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
        decoder.reserve(forFileSize: size)
        try StoreFileReader.read(descriptor, size: size, path: path, into: decoder)
        try ReferenceResolver.resolve(decoder)

        metadata = StoreMetadata(
            storeType: metadata.storeType,
            storeIdentifier: decoder.storeUUID ?? metadata.storeIdentifier,
            entityVersionHashes: decoder.entityVersionHashes ?? [:],
            modelVersionHash: decoder.modelVersionHash,
            userInfo: decoder.userInfo)
        // One past the largest reference, saturated: a file holding reference Int64.max loads,
        // and leaves no reference for an insert (which then fails with a clear error).
        nextReference = max(decoder.fileNextReference ?? 1, StoreFileFormat.reference(after: decoder.maxReference))
        removeAllCacheNodes()
        addCacheNodes(decoder.nodes)
    }

    // MARK: - Saving

    open override func willRemoveCacheNodes(_ nodes: [CacheNode]) {
        super.willRemoveCacheNodes(nodes)
        deletedReferences.insert(nodes)
    }

    /// Writes every node to a temporary file and replaces the store file with it.
    open override func save() throws {
        if options.isReadOnly { throw JSONStoreError.readOnly(path: path) }
        if loadFailed { throw JSONStoreError.loadFailed(path: path) }
        let dangling = DanglingFilter(deleted: deletedReferences.references,
                                      exists: { [unowned self] in self.cacheNode(for: $0) != nil })
        let encoder = try StoreFileEncoder(plan: try plan(), metadata: metadata, nextReference: nextReference,
                                           dangling: dangling, nodes: { [unowned self] in self.cacheNodes(ofEntity: $0) })
        try DurableFile.replace(path: realPath, newFileMode: newFileMode) { sink in try encoder.write(to: sink) }
    }
}
