import DocumentProtocol
import Foundation
import GraphCore
import Logging
import JSONCore

/// The writer's object graph: one coordinator, one store, one context. It belongs to the
/// writer thread (``StoreWorker``) and is used by nothing else, so it needs no locks.
///
/// Saves run through GraphCore: each one in a child context of ``context`` (inverses,
/// delete rules, validation), pushed into it when valid; ``commit()`` then writes every
/// pushed save with one durable store save, publishes the next ``ReadState`` (readers take
/// it from ``publisher``), answers the saves, and makes the context forget every object.
/// A save that only updates attributes of a store file's objects skips the contexts: its
/// objects' new snapshots are made and checked directly (``stageDirectly(_:reply:)``).
final class StoreGraph {
    let model: ObjectModel
    let coordinator: StoreCoordinator
    let store: PersistentStore
    /// Holds the changes of the saves staged since the last commit, and nothing else: it
    /// forgets its objects after each commit, so it does not grow with the saves served.
    let context: ObjectContext
    /// Saves pushed into ``context``, answered at the next commit.
    var staged: [StagedSave] = []
    /// Every object the staged saves insert, change or delete.
    var touched: Set<ObjectID> = []
    /// The objects changed by saves staged directly (``stageDirectly(_:reply:)``), as the store
    /// will hold them once committed (at the versions they were read at). Never beside saves
    /// staged in ``context``: a group is committed one way or the other.
    var direct: [ObjectSnapshot] = []
    /// Whether saves of attributes alone are staged directly; off, every save goes the general
    /// way (the tests compare the two ways' answers and files).
    var stagesDirectUpdates = true
    /// Wire forms of committed objects, shared with the readers.
    let cache: WireObjectCache
    /// Relationships whose references may outlive their target, read as cleared.
    let dangling: DanglingReferences
    /// A read stops encoding its answer past this many bytes (``AnswerTooLarge``). Set
    /// before the readers start.
    var maximumAnswerBytes = Int.max
    /// The latest published state, for the readers.
    let publisher: StatePublisher
    /// The writer's state: the one it published last (``publisher``'s, without its lock), and with a
    /// bounded cache, the objects read from the database for the saves under way.
    var state: ReadState
    /// How long building the first state from the store took (for the start-up log).
    let stateBuildTime: Duration
    /// Commits numbered by the server itself, for a store that does not number its own.
    private var localSequence: Int64 = 0
    /// The store as a store with a journal (snapshot + journal + history: the JSON store), when it is one.
    let journaled: (any JournaledStore)?
    /// Its checkpoints, run off the writer's path.
    let checkpoints: BackgroundCheckpoint
    /// Where each commit's change sets go (set by the engine before it starts).
    var feed: ChangeFeed?
    /// The commits of every server on the database, when the store is one that several
    /// servers may share (a ``SharedDatabaseStore``: ``catchUp(through:)``).
    let sharedHistory: (any CommitHistoryReader)?
    /// The number of the last commit of the shared database this graph's state holds.
    var sharedSequence: Int64 = 0
    /// The hole found in the shared history, once one is (the server then refuses saves).
    var historyHole: HistoryHole?
    /// Whether ``historyHole`` was logged already.
    var reportedHistoryHole = false
    /// The store's log.
    let logger: Logger
    /// How many of the shared database's newest commits the feed starts with.
    let sharedHistoryCommits: Int
    /// With a bounded cache (a shared database only): what the state's objects may take, and
    /// which go first (``StoreGraph+Cache``). Nil: the state holds every object.
    var budget: ObjectBudget?
    /// With a bounded cache: which objects read after a miss the full cache keeps.
    var admission: AdmissionFilter?
    /// With a bounded cache: the objects the latest commits changed (whether what a reader read
    /// may be kept).
    var recentChanges = RecentChanges(latest: 0)
    /// A read of the database that failed while a save was checked (the save answers it).
    var databaseFailure: (any Error)?

    /// Opens the store (loading an atomic store whole) and builds the first state from it.
    ///
    /// An atomic store keeps only the fetch indexes its uniqueness checks use
    /// (``AtomicStore/fetchIndexesOption``): the readers use the states' own.
    /// A JSON store is opened without checkpoints of its own while the server runs: the
    /// server checkpoints it from a published state once its journal passes
    /// `checkpointThresholdBytes` (``BackgroundCheckpoint``; 0: only when the store closes).
    /// Its checkpoints keep the newest `historyRecords` journal records in its history file.
    /// With `cacheBytes`, a shared database's objects are not loaded: the state holds those a
    /// cache of that many bytes keeps, read as they are asked for.
    init(model: ObjectModel, storeType: String, storeURL: URL, storeOptions: StoreOptions = StoreOptions(),
         cache: WireObjectCache, checkpointThresholdBytes: Int = ServerConfiguration.defaultJournalCheckpointBytes,
         historyRecords: Int = 0, cacheBytes: Int? = nil,
         logger: Logger = Logger(label: "docserver.store", factory: { _ in SwiftLogNoOpLogHandler() })) throws {
        self.model = model
        self.cache = cache
        dangling = DanglingReferences(model: model)
        coordinator = StoreCoordinator(model: model)
        var options = storeOptions
        options.values[JournaledStoreOptions.checkpointBytes] = "0"
        // Fetches are answered from the published states' indexes: the store keeps only those
        // its uniqueness checks use.
        options.values[AtomicStore.fetchIndexesOption] = AtomicStore.uniquenessIndexesOnly
        if historyRecords > 0 {
            options.values[JournaledStoreOptions.historyRecords] = String(historyRecords)  // a store without a journal ignores it
        }
        store = try coordinator.addPersistentStore(type: storeType, at: storeURL, options: options)
        journaled = store as? any JournaledStore
        sharedHistoryCommits = historyRecords
        self.logger = logger
        sharedHistory = try (store as? any SharedDatabaseStore)?.openCommitHistory()
        // Read before the objects: the state then holds at least this commit, and catching up
        // from it reads any later one again.
        sharedSequence = try sharedHistory?.latestSequence() ?? 0
        checkpoints = BackgroundCheckpoint(thresholdBytes: checkpointThresholdBytes, logger: logger)
        context = ObjectContext(coordinator: coordinator)
        let building = ContinuousClock.now
        let bounded = cacheBytes != nil && sharedHistory != nil
        if bounded, let cacheBytes {
            budget = ObjectBudget(limit: cacheBytes)
            admission = AdmissionFilter(budgetBytes: cacheBytes)
        }
        recentChanges = RecentChanges(latest: sharedSequence)
        let first = ReadState(sequence: 0, storeIdentifier: store.identifier, model: model,
                              snapshots: bounded ? [] : try Self.allSnapshots(of: store, model: model), isComplete: !bounded)
        state = first
        stateBuildTime = ContinuousClock.now - building
        publisher = StatePublisher(first)
        localSequence = 0
        refreshState(sequence: committedSequence())
        if !(store is AtomicStore) {
            // The context loads committed objects from the published state, as the writer's
            // checks read them, instead of with a query per object (`snapshot(of:)`).
            context.committedSnapshots = { [unowned self] id in self.snapshot(of: id) }
        }
    }

    /// The number of the last durable commit: read at open and after each commit, the one
    /// place that says where the number comes from (a store that numbers its commits
    /// durably answers it here).
    private func committedSequence() -> Int64 {
        sharedHistory != nil ? sharedSequence : journaled?.commitSequence ?? localSequence
    }

    /// Every object of the store, as snapshots.
    private static func allSnapshots(of store: PersistentStore, model: ObjectModel) throws -> [ObjectSnapshot] {
        if let atomic = store as? AtomicStore {
            return atomic.cacheNodes().map { ObjectSnapshot(objectID: $0.objectID, version: $0.version, values: $0.values) }
        }
        var snapshots: [ObjectSnapshot] = []
        for entity in model.entities where !entity.isAbstract {
            let found = try store.fetch(FetchRequest(entityName: entity.name, includesSubentities: false))
            snapshots += found.snapshots
            for id in found.faults { if let snapshot = try store.snapshot(for: id) { snapshots.append(snapshot) } }
        }
        return snapshots
    }

    /// Publishes the state after commit `sequence` when it differs from the one published.
    private func refreshState(sequence: Int64) {
        guard sequence != state.sequence else { return }
        state = state.advanced(to: sequence, changes: [])
        publisher.publish(state)
    }

    /// Releases the store (and its lock), after the checkpoint under way, if any; a JSON
    /// store checkpoints what its journal holds as it closes.
    func close() {
        if let journaled { checkpoints.finishWaiting(store: journaled) }
        coordinator.remove(store)
        sharedHistory?.close()
    }

    /// On the writer, after a commit or when a snapshot was written: the checkpoint's next step.
    func stepCheckpoint() {
        if let journaled { checkpoints.step(store: journaled, state: state) }
    }

    /// How many objects the store holds (for the start-up log).
    var objectCount: Int { state.objectCount }

    /// A reader of the latest published state.
    var reader: StoreReader {
        StoreReader(state: publisher.current, cache: cache, maximumAnswerBytes: maximumAnswerBytes)
    }

    /// Publishes the state after a durable commit that made `changes` (each object as it is
    /// now, nil when deleted) and returns its number. With a bounded cache and `refreshingOnly`
    /// (another server's commit), the state takes only the changed objects it holds already.
    func publishCommit(changes: ReadState.Changes, commits: Int = 1, refreshingOnly: Bool = false) -> Int64 {
        localSequence += Int64(commits)
        let previous = state.sequence
        let kept = isCacheBounded && refreshingOnly
            ? changes.filter { $0.snapshot == nil || state.storedSnapshot(of: $0.id) != nil } : changes
        state = state.advanced(to: committedSequence(), changes: kept)
        if isCacheBounded {
            noteCommit(kept, changed: changes.map(\.id), advanced: state.sequence > previous)
            evictOverflow()
        }
        publisher.publish(state)
        return state.sequence
    }

    /// An object the context just saved, as the store now holds it: read from the context's
    /// object (the values it handed the store, the version the store gave back), not from the
    /// store; from the store only when the context does not hold it.
    func savedSnapshot(of id: ObjectID) -> ObjectSnapshot? {
        guard id.storeIdentifier == store.identifier else { return nil }
        return context.savedSnapshot(of: id) ?? (try? store.snapshot(for: id))
    }

    // MARK: - The store, as the writer sees it

    /// The committed state of an object, or nil when the store has none. References to
    /// deleted objects that nothing cleared read as cleared (``DanglingReferences``).
    func snapshot(of id: ObjectID) -> ObjectSnapshot? {
        guard let snapshot = storedSnapshot(of: id) else { return nil }
        return dangling.isEmpty || isCacheBounded ? snapshot : dangling.cleared(snapshot) { self.exists($0) }
    }

    /// An object as this writer knows it committed. A store that keeps its objects elsewhere (a
    /// database) is not asked, which would be a query per object: the state this writer
    /// published holds every committed object it knows, in memory, and the database checks the
    /// versions again when a save is written.
    func storedSnapshot(of id: ObjectID) -> ObjectSnapshot? {
        guard id.storeIdentifier == store.identifier else { return nil }
        guard store is AtomicStore else {
            if let held = state.storedSnapshot(of: id) { return held }
            // A bounded cache: the database has the objects the state does not hold.
            guard isCacheBounded, let loaded = loadFromDatabase(id), loaded.objectID.entity === id.entity else { return nil }
            return loaded
        }
        return try? store.snapshot(for: id)
    }

    /// The ID of the object `id` names as the store holds it: an ID may name the object's
    /// entity or one of its ancestors (`graph://S/Animal/7` for `graph://S/Dog/7`). Nil when
    /// there is no such object (an ID naming a sibling entity names none).
    func canonical(_ id: ObjectID) -> ObjectID? {
        guard !isCacheBounded else {
            guard id.storeIdentifier == store.identifier else { return nil }
            let found = state.canonicalSnapshot(of: id) ?? loadFromDatabase(id)
            return found.flatMap { $0.objectID.entity.isKind(of: id.entity) ? $0.objectID : nil }
        }
        if exists(id) { return id }
        guard id.storeIdentifier == store.identifier else { return nil }
        for entity in model.entities where entity.name != id.entity.name && !entity.isAbstract && entity.isKind(of: id.entity) {
            if let atomic = store as? AtomicStore {
                let candidate = atomic.objectID(for: entity, referenceObject: id.referenceObject)
                if atomic.cacheNode(for: candidate) != nil { return candidate }
            } else {
                let candidate = ObjectID(entity: entity, storeIdentifier: store.identifier, reference: id.referenceObject)
                if state.storedSnapshot(of: candidate) != nil { return candidate }
            }
        }
        return nil
    }

    /// Whether the store holds the object.
    func exists(_ id: ObjectID) -> Bool {
        if let atomic = store as? AtomicStore { return id.storeIdentifier == store.identifier && atomic.cacheNode(for: id) != nil }
        return storedSnapshot(of: id) != nil
    }

    /// The history the feed starts with, as change sets: a shared database's newest commits, or
    /// a JSON store's history file and journal (empty for other stores, or when it cannot be read).
    func storedHistory() -> [ChangeSet] {
        if sharedHistory != nil { return sharedChangeSets() }
        guard let journaled else { return [] }
        do {
            return JournalHistory.changeSets(from: try journaled.historyRecordBytes(), state: state)
        } catch {
            // Only history is lost, never a commit; `changes` then answers `history expired` for
            // the commits before this start, and this says why.
            logger.warning("the store's history cannot be read: changes before this start are not kept",
                           metadata: ["error": "\(LogText.escaped("\(error)"))"])
            return []
        }
    }
}
