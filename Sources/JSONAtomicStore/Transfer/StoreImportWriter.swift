import Foundation
import GraphCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes a whole set of objects as a store's new content, in one atomic step: the
/// `docserver import` behind its parsing.
///
/// Under the store's lock (a running server or another import makes it fail with
/// ``JSONStoreError/storeInUse(path:processID:)``) it checks the content as a load of the
/// store would (values, references, inverses, uniqueness constraints: see ``ContentCheck``),
/// writes a new snapshot file beside the store, and only then renames it over the store and
/// empties the journal. A failure at any point leaves the store as it was.
public enum StoreImportWriter {
    /// How the new content is checked before it replaces the store's.
    public enum ContentCheck: Sendable {
        /// The new snapshot file is written, then opened read-only as the loader would (every
        /// check of a store file, on the bytes written), before the rename.
        case loadingTheWrittenFile
        /// The objects are checked in memory with the loader's rules before the file is
        /// written (``ImportedContentCheck``): each object is built once, not again by a load.
        case inMemory
    }

    /// What the store held before the import.
    public struct Existing: Sendable {
        /// Its objects.
        public let objects: Int
        /// Its last commit (`commitSequence` after the journal's replay).
        public let commitSequence: Int64
    }

    /// The refusal of an import into a store that holds objects without `replacing`.
    public struct NotEmpty: Error, CustomStringConvertible {
        /// The store file.
        public let path: String
        /// How many objects it holds.
        public let objects: Int
        public var description: String {
            "\(path) already holds \(objects) object(s): import writes a whole store and refuses to drop them; "
                + "pass --replace to replace them with the imported objects, or import into a new store file"
        }
    }

    /// Replaces the content of the store at `path` by `nodes` (every object, by concrete
    /// entity name; relationships as IDs whose references are the objects' `ref`s), with the
    /// store UUID `storeUUID` (so that the objects keep their IDs) and `userInfo`.
    ///
    /// A store file that does not exist is created. One that holds objects is refused with
    /// ``NotEmpty`` unless `replacing`. The new snapshot's `commitSequence` is one past the
    /// store's last commit (0 for a new store), with no journal record: the change feed's
    /// history ends there, and a client's `since` from before the import is answered
    /// `history expired`. A copy of another store passes `commitSequence` (its last commit, so
    /// that numbering goes on from there) and `nextReference` (past every reference it handed
    /// out); errors then name `shownAs` instead of the store file. `check` says how the new
    /// content is checked (the same checks either way).
    ///
    /// - Returns: what the store held before.
    /// - Throws: ``NotEmpty``; ``JSONStoreError`` (the store in use, a store or a new content that does not load, naming what is wrong, I/O).
    @discardableResult
    public static func write(path: String, model: ObjectModel, storeUUID: String, userInfo: [String: String],
                             nodes: [String: [ObjectSnapshot]], replacing: Bool, fileMode: mode_t = 0o600,
                             commitSequence: Int64? = nil, nextReference: Int64 = 1, shownAs: String? = nil,
                             check contentCheck: ContentCheck = .loadingTheWrittenFile) throws -> Existing {
        JSONAtomicStore.register()
        let realPath = try StorePath.resolve(path)
        let directory = URL(fileURLWithPath: realPath).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw JSONStoreError.missingDirectory(store: path, directory: directory)
        }
        let lock = try StoreFileLock.acquire(storePath: realPath, mode: fileMode)
        defer { lock.release() }
        try JSONAtomicStore.checkWritable(realPath)
        let existing = try existingContent(path: path, model: model)
        if existing.objects > 0, !replacing { throw NotEmpty(path: path, objects: existing.objects) }

        let metadata = StoreMetadata(storeType: JSONAtomicStore.storeType, storeIdentifier: storeUUID,
                                     entityVersionHashes: model.entityVersionHashes, modelVersionHash: model.versionHash,
                                     userInfo: userInfo)
        let sequence = commitSequence ?? (existing.commitSequence > 0 ? existing.commitSequence.addingReportingOverflow(1).partialValue : 0)
        guard sequence >= 0 else { throw JSONStoreError.sequenceExhausted(path: path) }
        let encoder = try StoreFileEncoder(plan: ModelPlan(model: model), metadata: metadata, nextReference: max(nextReference, 1),
                                           commitSequence: sequence, dangling: DanglingFilter(deleted: [], exists: { _ in true }),
                                           nodes: { nodes[$0] ?? [] })
        let shown = shownAs ?? path
        switch contentCheck {
        case .loadingTheWrittenFile:
            try DurableFile.replace(path: realPath, newFileMode: fileMode, check: { temporary in
                try check(temporary, shownAs: shown, model: model)
            }, produce: { sink in try encoder.write(to: sink) })
        case .inMemory:
            do {
                try ImportedContentCheck.check(encoder.groups, plan: encoder.plan, file: shown + " (imported)")
            } catch {
                throw ImportedContentRefused(path: shown, reason: "\(error)")
            }
            try DurableFile.replace(path: realPath, newFileMode: fileMode, produce: { sink in try encoder.write(to: sink) })
        }
        // The old journal's records are all at or below the new commitSequence, so a crash
        // before this cut leaves a store that opens to the imported objects all the same.
        try emptyJournal(realPath + "-journal")
        return existing
    }

    /// The objects and last commit of the store at `path` (none for a missing file), read
    /// without the lock (the caller holds it).
    static func existingContent(path: String, model: ObjectModel) throws -> Existing {
        guard FileManager.default.fileExists(atPath: path) else { return Existing(objects: 0, commitSequence: 0) }
        let coordinator = StoreCoordinator(model: model)
        var options = StoreOptions()
        options.isReadOnly = true
        options.values[AtomicStore.fetchIndexesOption] = AtomicStore.uniquenessIndexesOnly
        let store = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: URL(fileURLWithPath: path),
                                                       options: options)
        defer { coordinator.remove(store) }
        guard let json = store as? JSONAtomicStore else { return Existing(objects: 0, commitSequence: 0) }
        return Existing(objects: json.cacheNodeCount, commitSequence: json.commitSequence)
    }

    /// Loads the new snapshot file read-only, as a server would open it, and checks the
    /// model's uniqueness constraints; errors name `shownAs` instead of the temporary file.
    static func check(_ temporary: String, shownAs path: String, model: ObjectModel) throws {
        let coordinator = StoreCoordinator(model: model)
        var options = StoreOptions()
        options.isReadOnly = true
        do {
            let store = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType,
                                                           at: URL(fileURLWithPath: temporary), options: options)
            defer { coordinator.remove(store) }
            if let violation = (store as? AtomicStore)?.firstUniquenessViolation() { throw violation }
        } catch {
            throw ImportedContentRefused(path: path, reason: "\(error)".replacingOccurrences(of: temporary, with: path + " (imported)"))
        }
    }

    /// Cuts the journal to nothing, durably (a missing journal stays missing).
    static func emptyJournal(_ journalPath: String) throws {
        let descriptor = open(journalPath, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return }
            throw JSONStoreError.io(path: journalPath, operation: "open", errno: errno)
        }
        defer { close(descriptor) }
        guard ftruncate(descriptor, 0) == 0 else { throw JSONStoreError.io(path: journalPath, operation: "ftruncate", errno: errno) }
        guard fsync(descriptor) == 0 else { throw JSONStoreError.io(path: journalPath, operation: "fsync", errno: errno) }
    }
}

/// Imported objects that do not make a valid store (a dangling reference, sides of a
/// relationship that disagree, a uniqueness constraint broken): the store is left as it was.
public struct ImportedContentRefused: Error, CustomStringConvertible {
    /// The store file.
    public let path: String
    /// What the loader found, naming the entity, the reference and the property.
    public let reason: String
    public var description: String { "\(path): the imported objects were refused, the store is unchanged: \(reason)" }
}
