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
/// - While open for writing the store holds an exclusive lock (`<file>.lock`); another
///   process, or another open in this one, gets ``JSONStoreError/storeInUse(path:processID:)``.
///   The lock is released when the store is removed from its coordinator or deallocated.
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

    /// The path of the store file.
    public let path: String
    private var lock: StoreFileLock?
    private var loadFailed = false
    private var cachedPlan: ModelPlan?
    private var deletedReferences = DeletedReferences()

    /// Opens the store at `url` (a file URL): checks the directory and takes the lock.
    /// Reading happens in `loadMetadata()`, called by the coordinator.
    public required init(coordinator: StoreCoordinator, configurationName: String?, url: URL?, options: StoreOptions) throws {
        guard let url, url.isFileURL else { throw JSONStoreError.notAFileURL(url?.absoluteString ?? "no URL") }
        path = url.path
        try super.init(coordinator: coordinator, configurationName: configurationName, url: url, options: options)
        metadata.storeType = Self.storeType
        metadata.storeIdentifier = UUID().uuidString.lowercased()
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw JSONStoreError.missingDirectory(store: path, directory: directory)
        }
        if !options.isReadOnly {
            lock = try StoreFileLock.acquire(storePath: path)
            DurableFile.removeLeftovers(of: path)
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
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
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
        try DurableFile.replace(path: path) { sink in try encoder.write(to: sink) }
    }
}
