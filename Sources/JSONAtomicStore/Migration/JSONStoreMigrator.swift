import Foundation
import GraphCore
#if canImport(Glibc)
import Glibc
#endif

/// Migrates a JSON store from the model version it was written with to the newest of a list
/// of versions, all or nothing and crash-safe (`docs/MODEL.md`, "Model versions and migration").
///
/// ```swift
/// let migrator = JSONStoreMigrator(path: "data/store.json", versions: [v1, v2, v3])
/// print(try migrator.plan().report)      // what would change; writes nothing
/// let outcome = try migrator.migrate()  // writes the backup, then the migrated store
/// ```
///
/// 1. Takes the store's lock for the whole migration (a server holding the store makes it
///    fail with ``JSONStoreError/storeInUse(path:processID:)``).
/// 2. Reads the store through the store's own load, with the version whose entity hashes the
///    store records (each version is tried, newest first).
/// 3. Runs every step (v1 → v2 → v3) over the objects in memory: they keep their references,
///    store UUID and versions, so every object ID stays the same.
/// 4. Folds the store's journal into its file (with the old model), then copies the store file to the backup `<store>.<first 12 hex digits of the source model's
///    version hash>.backup` (durably; an existing backup is never overwritten unless it is
///    already a copy of the store, left by an interrupted migration).
/// 5. Writes the migrated store to a temporary file, `fsync`s it, checks it as `docserver check`
///    does (``StoreMigrationError/migratedStoreInvalid(reason:)`` leaves the store unchanged),
///    renames it over the store file, then `fsync`s the directory. A kill at any moment leaves
///    the old store or the new one.
///
/// A step that would drop data (a removed entity's objects, a removed attribute's values, a
/// removed relationship's links) is refused with ``GraphCore/MigrationError/wouldLoseData(from:to:losses:)``
/// unless ``acceptedLosses`` names each loss.
public struct JSONStoreMigrator: Sendable {
    /// The store file, as given.
    public let path: String
    /// The model versions, oldest first; the last one is the destination.
    public let versions: [ObjectModel]
    /// What to call each version in messages (its file name); by default its hash.
    public let labels: [String]?
    /// The data the migration may drop (a removed entity's objects, a removed property's
    /// values), by name; by default none: such a step is refused, naming each loss.
    public let acceptedLosses: MigrationLossAcceptance
    /// Versions that could not be read, by the index in ``versions`` of the version they come
    /// before (an Xcode bundle's unreadable versions): a migration across one is refused.
    public let unreadableBefore: [Int: [String]]
    /// Mapping models (Xcode's `.xcmappingmodel`) for steps between the versions: a step one is
    /// made for runs with it instead of being inferred (``GraphCore/MigrationPlan``).
    public let mappingModels: [XcodeMappingModel]
    /// Each version's name, as a mapping model's recorded model paths name it (a bundle
    /// version's name, a file's name without its extension); needed with ``mappingModels``.
    public let versionNames: [String]
    /// The name of the model bundle (`.xcdatamodeld`, without the extension) the versions come from, if they do.
    public let bundleName: String?

    /// What a migration did, or a dry run would do.
    public struct Outcome: Sendable {
        /// What changes, entity by entity and property by property.
        public var report: String
        /// The index in ``JSONStoreMigrator/versions`` of the version the store was written with.
        public var sourceIndex: Int
        /// The backup written (or kept from an interrupted migration); nil for a dry run or when nothing changed.
        public var backupPath: String?
        /// Whether the store was at the destination version already (nothing to do; the report is empty).
        public var wasCurrent: Bool
    }

    /// A migrator of the store at `path` to the last of `versions`.
    public init(path: String, versions: [ObjectModel], labels: [String]? = nil, acceptedLosses: MigrationLossAcceptance = .none,
                unreadableBefore: [Int: [String]] = [:], mappingModels: [XcodeMappingModel] = [], versionNames: [String] = [],
                bundleName: String? = nil) {
        self.unreadableBefore = unreadableBefore
        self.mappingModels = mappingModels
        self.versionNames = versionNames
        self.bundleName = bundleName
        self.path = path
        self.versions = versions
        self.labels = labels
        self.acceptedLosses = acceptedLosses
    }

    /// The backup's path for a store and the model it was written with.
    public static func backupPath(forStore realPath: String, sourceModel: ObjectModel) -> String {
        "\(realPath).\(sourceModel.versionHash.prefix(12)).backup"
    }

    /// Reads the store and runs the migration in memory, writing nothing: the report says what
    /// would change, and the errors are those ``migrate()`` would throw.
    public func plan() throws -> Outcome {
        try run(write: false)
    }

    /// Migrates the store (see the type's description).
    ///
    /// - Throws: ``StoreMigrationError``; ``GraphCore/MigrationError`` when a step is not
    ///   lightweight or the data does not fit it (naming every entity, property and object);
    ///   ``JSONStoreError`` when the store is in use or cannot be read or written. The store is
    ///   unchanged whenever it throws.
    public func migrate() throws -> Outcome {
        try run(write: true)
    }

    private func run(write: Bool) throws -> Outcome {
        guard !versions.isEmpty else { throw StoreMigrationError.noVersions }
        let realPath = try StorePath.resolve(path)
        var lock: StoreFileLock?
        if write {
            lock = try StoreFileLock.acquire(storePath: realPath)
            DurableFile.removeLeftovers(of: realPath)
        }
        defer { lock?.release() }
        guard FileManager.default.fileExists(atPath: realPath) else { throw StoreMigrationError.noStore(path: path) }

        let (index, loaded, coordinator) = try loadWithRecordedVersion(realPath)
        defer { withExtendedLifetime(coordinator) {} }
        if index == versions.count - 1 {
            return Outcome(report: "", sourceIndex: index, backupPath: nil, wasCurrent: true)
        }
        let crossed = versions.indices.filter { $0 > index }.flatMap { unreadableBefore[$0] ?? [] }
        if !crossed.isEmpty { throw StoreMigrationError.unreadableVersionOnPath(names: crossed) }
        let plan = try MigrationPlan(versions: versions, from: index, labels: labels, versionNames: versionNames,
                                     mappingModels: mappingModels, bundleName: bundleName)
        let (nodes, report) = try plan.migrate(loaded.cacheNodes(), acceptingLosses: acceptedLosses)
        guard write else { return Outcome(report: report, sourceIndex: index, backupPath: nil, wasCurrent: false) }

        try foldJournal(of: loaded, model: versions[index], at: realPath)
        let backup = Self.backupPath(forStore: realPath, sourceModel: versions[index])
        try StoreBackup.write(copyOf: realPath, to: backup)
        try writeMigrated(nodes, like: loaded, to: realPath)
        return Outcome(report: report, sourceIndex: index, backupPath: backup, wasCurrent: false)
    }

    /// The store read read-only with the version it was written with, newest version first.
    private func loadWithRecordedVersion(_ realPath: String) throws -> (Int, JSONAtomicStore, StoreCoordinator) {
        for index in versions.indices.reversed() {
            let coordinator = StoreCoordinator(model: versions[index])
            let store = try JSONAtomicStore(coordinator: coordinator, configurationName: nil,
                                            url: URL(fileURLWithPath: realPath), options: StoreOptions(isReadOnly: true))
            do {
                try withExtendedLifetime(coordinator) { try store.loadMetadata() }
                return (index, store, coordinator)
            } catch JSONStoreError.modelMismatch {
                continue
            }
        }
        throw MigrationError.noMatchingVersion(store: path, tried: versions.count)
    }

    /// Folds the store's journal into its snapshot, with the model it was written with, before
    /// anything else: then the store file alone is the whole old store (what the backup copies),
    /// and the migrated store starts with an empty journal. The snapshot is written first (with
    /// the last commit's number, so that a kill before the journal is emptied replays none of
    /// its records), then the journal is truncated.
    private func foldJournal(of loaded: JSONAtomicStore, model: ObjectModel, at realPath: String) throws {
        let journal = realPath + "-journal"
        var info = stat()
        guard lstat(journal, &info) == 0, info.st_size > 0 else { return }
        let encoder = try StoreFileEncoder(plan: ModelPlan(model: model), metadata: loaded.metadata,
                                           nextReference: loaded.nextReference, commitSequence: loaded.commitSequence,
                                           dangling: DanglingFilter(deleted: [], exists: { loaded.cacheNode(for: $0) != nil }),
                                           nodes: { loaded.cacheNodes(ofEntity: $0) })
        try DurableFile.replace(path: realPath) { sink in try encoder.write(to: sink) }
        let descriptor = open(journal, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw JSONStoreError.io(path: loaded.journalPath, operation: "open", errno: errno) }
        defer { close(descriptor) }
        guard ftruncate(descriptor, 0) == 0 else { throw JSONStoreError.io(path: loaded.journalPath, operation: "truncate", errno: errno) }
        guard fsync(descriptor) == 0 else { throw JSONStoreError.io(path: loaded.journalPath, operation: "fsync", errno: errno) }
    }

    /// Writes the migrated objects as the store file, with the old store's last commit number
    /// (its journal is empty: ``foldJournal(of:model:at:)``).
    private func writeMigrated(_ nodes: [ObjectSnapshot], like old: JSONAtomicStore, to realPath: String) throws {
        guard let destination = versions.last else { throw StoreMigrationError.noVersions }
        var byEntity: [String: [ObjectSnapshot]] = [:]
        for node in nodes { byEntity[node.objectID.entityName, default: []].append(node) }
        var metadata = old.metadata
        metadata.entityVersionHashes = destination.entityVersionHashes
        metadata.modelVersionHash = destination.versionHash
        let encoder = try StoreFileEncoder(plan: ModelPlan(model: destination), metadata: metadata,
                                           nextReference: old.nextReference, commitSequence: old.commitSequence,
                                           dangling: DanglingFilter(deleted: [], exists: { _ in true }),
                                           nodes: { byEntity[$0] ?? [] })
        try DurableFile.replace(path: realPath, check: { written in try MigratedStoreCheck.check(path: written, model: destination) }) { sink in
            try encoder.write(to: sink)
        }
    }
}
