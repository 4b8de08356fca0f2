import Foundation

/// What one save changes in a store's indexes, as one job per index it touches: each job
/// takes the save's inserted, updated and removed snapshots of the index's entity into that
/// index (in that order, as ``StoreIndexes/apply(inserted:updated:removed:)`` does).
///
/// The upkeep takes the indexes it changes out of the store's (``init(taking:inserted:updated:removed:)``),
/// so that each job holds the only reference to its index and the persistent trees change in
/// place (``SnapshotIndexTree``); the store puts them back once the save is written
/// (``StoreIndexes/take(_:)``). When the write fails, ``undo()`` takes the save out of them
/// again: the indexes then hold the entries they held before (their nodes may be cut
/// elsewhere).
///
/// The saving thread usually runs the jobs itself while its store waits for the disk (the JSON
/// store's journal syncs on another thread meanwhile: ``AtomicStoreChanges/whileWriting``).
/// Jobs of different indexes touch different values and only read the snapshots, so they may
/// also run on different threads: for a store that does not, ``AtomicStore/save(_:)`` offers the
/// upkeep to the ``IndexUpkeepWorker``, which starts on the jobs while the caller writes the save
/// (a journal append waits for `fdatasync`, the CPU idle meanwhile), and the caller then runs
/// whatever jobs are left itself and waits for those the worker took (``finish()``). A job is
/// claimed under the lock by exactly one thread, so when the worker is late or busy the caller
/// does all the work, as without a worker, at the cost of a lock and a wake-up.
final class IndexUpkeep: @unchecked Sendable {
    // Safe to share: `jobs` is never changed after `init`; job `j` is run by the one thread that
    // claimed it, which alone touches `indexes[j]` meanwhile; `next` and `finished` are only
    // touched with `condition` locked, and ``finish()`` returns only after every claimed job has
    // finished (the lock orders the worker's writes before the caller's reads of `indexes`);
    // ``undo()`` and ``giveBack(into:)`` are called by the saving thread after ``finish()``. The
    // snapshots are immutable values.
    private struct Job {
        let entity: String
        /// The index's place among its entity's indexes.
        let position: Int
        let inserted: [ObjectSnapshot]
        let updated: [(old: ObjectSnapshot, new: ObjectSnapshot)]
        let removed: [ObjectSnapshot]

        var operations: Int { inserted.count + updated.count + removed.count }

        func run(_ index: inout SnapshotIndex) {
            index.insert(contentsOf: inserted)
            for (old, new) in updated { index.apply(old: old, new: new) }
            for snapshot in removed { index.apply(old: snapshot, new: nil) }
        }

        /// Takes the changes out again, the last first.
        func undo(_ index: inout SnapshotIndex) {
            for snapshot in removed.reversed() { index.apply(old: nil, new: snapshot) }
            for (old, new) in updated.reversed() { index.apply(old: new, new: old) }
            for snapshot in inserted.reversed() { index.apply(old: snapshot, new: nil) }
        }
    }

    private let jobs: [Job]
    /// The index of each job: the store's, taken out of it, changed in place by the job.
    private let indexes: UnsafeMutableBufferPointer<SnapshotIndex?>
    /// The entities whose indexes the upkeep took, each with how many it took.
    private let taken: [(entity: String, count: Int)]
    private let condition = NSCondition()
    /// The next job nobody has claimed.
    private var next = 0
    /// How many claimed jobs have finished.
    private var finished = 0

    /// The jobs of one save, with the indexes of the entities it touches taken out of
    /// `store`; nil (nothing taken) when the save touches no index.
    init?(taking store: inout SnapshotIndexes, inserted: [ObjectSnapshot], updated: [(old: ObjectSnapshot, new: ObjectSnapshot)],
          removed: [ObjectSnapshot]) {
        guard !store.isEmpty else { return nil }
        typealias Changes = (inserted: [ObjectSnapshot], updated: [(old: ObjectSnapshot, new: ObjectSnapshot)], removed: [ObjectSnapshot])
        var byEntity: [String: Changes] = [:]
        for snapshot in inserted where store.hasIndexes(ofEntity: snapshot.objectID.entityName) {
            byEntity[snapshot.objectID.entityName, default: ([], [], [])].inserted.append(snapshot)
        }
        for change in updated where store.hasIndexes(ofEntity: change.new.objectID.entityName) {
            byEntity[change.new.objectID.entityName, default: ([], [], [])].updated.append(change)
        }
        for snapshot in removed where store.hasIndexes(ofEntity: snapshot.objectID.entityName) {
            byEntity[snapshot.objectID.entityName, default: ([], [], [])].removed.append(snapshot)
        }
        guard !byEntity.isEmpty else { return nil }
        var jobs: [Job] = []
        var owned: [SnapshotIndex] = []
        var taken: [(entity: String, count: Int)] = []
        for entity in byEntity.keys.sorted() {
            guard let changes = byEntity[entity] else { continue }
            // Out of the store: once this initializer returns, each index is held by its job's
            // slot alone (the locals' references end with it).
            let first = owned.count
            owned.append(contentsOf: store.take(ofEntity: entity))
            for position in 0..<(owned.count - first) {
                jobs.append(Job(entity: entity, position: position,
                                inserted: changes.inserted, updated: changes.updated, removed: changes.removed))
            }
            taken.append((entity, owned.count - first))
        }
        self.jobs = jobs
        self.taken = taken
        indexes = .allocate(capacity: owned.count)
        _ = indexes.initialize(from: owned.map(Optional.some))
    }

    deinit {
        indexes.deinitialize()
        indexes.deallocate()
    }

    /// Below this many index entries to insert, move or remove, a save takes them in after its
    /// write rather than while its store waits for the disk (``AtomicStoreChanges/whileWriting``):
    /// handing the wait to another thread costs about 60 µs of waking it (an idle core of a
    /// virtual machine, measured on the JSON store's journal), which fewer entries (about 1 µs
    /// each between durable saves) would not hide, and on a machine whose cores are all busy the
    /// other thread may wait for one.
    static let besideWriteThreshold = 64

    /// How many index entries the jobs insert, move or remove in all.
    var operations: Int { jobs.reduce(0) { $0 + $1.operations } }

    /// Claims the next job and runs it; false when none was left.
    @discardableResult
    func runNext() -> Bool {
        condition.lock()
        guard next < jobs.count else {
            condition.unlock()
            return false
        }
        let claimed = next
        next += 1
        condition.unlock()
        if var index = indexes[claimed].take() {  // the slot's reference dropped: the job's is the only one
            jobs[claimed].run(&index)
            indexes[claimed] = index
        }
        condition.lock()
        finished += 1
        if finished == jobs.count { condition.broadcast() }
        condition.unlock()
        return true
    }

    /// Runs the jobs nobody has claimed, then waits until those others claimed have finished:
    /// afterwards every index holds the save, and no other thread touches one.
    func finish() {
        while runNext() {}
        condition.lock()
        while finished < jobs.count { condition.wait() }
        condition.unlock()
    }

    /// Takes the save out of the indexes again (its write failed), once ``finish()`` returned:
    /// each index then holds the entries it held when the upkeep took it.
    func undo() {
        for (job, change) in jobs.enumerated() {
            guard var index = indexes[job].take() else { continue }
            change.undo(&index)
            indexes[job] = index
        }
    }

    /// Puts the indexes back into `store`, where the upkeep took them from, once ``finish()``
    /// (and, for a failed write, ``undo()``) returned. Called once: the upkeep holds no index
    /// afterwards.
    func giveBack(into store: inout SnapshotIndexes) {
        var job = 0
        for (entity, count) in taken {
            var entityIndexes: [SnapshotIndex] = []
            entityIndexes.reserveCapacity(count)
            for _ in 0..<count {
                if let index = indexes[job].take() { entityIndexes.append(index) }
                job += 1
            }
            store.put(entityIndexes, ofEntity: entity)
        }
    }
}
