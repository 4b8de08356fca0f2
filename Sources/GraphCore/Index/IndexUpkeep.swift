import Foundation

/// What one save changes in a store's indexes, as one job per index it touches: each job
/// takes the save's inserted, updated and removed snapshots of the index's entity into its own
/// copy of that index (in that order, as ``StoreIndexes/apply(inserted:updated:removed:)``
/// does). The indexes are persistent values: a job makes the next one from the store's and
/// leaves the store's as it was; the store takes the results (``StoreIndexes/take(_:)``) once
/// its write succeeded, and a failed write keeps the indexes it had, with nothing to undo.
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
    // claimed it, which alone writes `built[j]`; `next` and `finished` are only touched with
    // `condition` locked, and ``finish()`` returns only after every claimed job has finished
    // (the lock orders the worker's writes before the caller's reads of `built`). The
    // snapshots are immutable values.
    private struct Job {
        let entity: String
        let position: Int
        let index: SnapshotIndex
        let inserted: [ObjectSnapshot]
        let updated: [(old: ObjectSnapshot, new: ObjectSnapshot)]
        let removed: [ObjectSnapshot]

        var operations: Int { inserted.count + updated.count + removed.count }

        func run() -> SnapshotIndex {
            var index = index
            for snapshot in inserted { index.apply(old: nil, new: snapshot) }
            for (old, new) in updated { index.apply(old: old, new: new) }
            for snapshot in removed { index.apply(old: snapshot, new: nil) }
            return index
        }
    }

    private let jobs: [Job]
    /// The index each job made, by job.
    private let built: UnsafeMutableBufferPointer<SnapshotIndex?>
    private let condition = NSCondition()
    /// The next job nobody has claimed.
    private var next = 0
    /// How many claimed jobs have finished.
    private var finished = 0

    /// The jobs of one save over `indexes` (by concrete entity); nil when the save touches no
    /// index.
    init?(_ indexes: [String: [SnapshotIndex]], inserted: [ObjectSnapshot], updated: [(old: ObjectSnapshot, new: ObjectSnapshot)],
          removed: [ObjectSnapshot]) {
        guard !indexes.isEmpty else { return nil }
        typealias Changes = (inserted: [ObjectSnapshot], updated: [(old: ObjectSnapshot, new: ObjectSnapshot)], removed: [ObjectSnapshot])
        var byEntity: [String: Changes] = [:]
        for snapshot in inserted where indexes[snapshot.objectID.entityName] != nil {
            byEntity[snapshot.objectID.entityName, default: ([], [], [])].inserted.append(snapshot)
        }
        for change in updated where indexes[change.new.objectID.entityName] != nil {
            byEntity[change.new.objectID.entityName, default: ([], [], [])].updated.append(change)
        }
        for snapshot in removed where indexes[snapshot.objectID.entityName] != nil {
            byEntity[snapshot.objectID.entityName, default: ([], [], [])].removed.append(snapshot)
        }
        var jobs: [Job] = []
        for entity in byEntity.keys.sorted() {
            guard let changes = byEntity[entity] else { continue }
            for (position, index) in (indexes[entity] ?? []).enumerated() {
                jobs.append(Job(entity: entity, position: position, index: index,
                                inserted: changes.inserted, updated: changes.updated, removed: changes.removed))
            }
        }
        guard !jobs.isEmpty else { return nil }
        self.jobs = jobs
        built = .allocate(capacity: jobs.count)
        built.initialize(repeating: nil)
    }

    deinit {
        built.deinitialize()
        built.deallocate()
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
        built[claimed] = jobs[claimed].run()
        condition.lock()
        finished += 1
        if finished == jobs.count { condition.broadcast() }
        condition.unlock()
        return true
    }

    /// Runs the jobs nobody has claimed, then waits until those others claimed have finished:
    /// afterwards ``results()`` holds every index with the save, and no other thread touches one.
    func finish() {
        while runNext() {}
        condition.lock()
        while finished < jobs.count { condition.wait() }
        condition.unlock()
    }

    /// The index each job made (its entity, its position among the entity's indexes, the
    /// index with the save), once ``finish()`` returned.
    func results() -> [(entity: String, position: Int, index: SnapshotIndex)] {
        jobs.indices.compactMap { job in built[job].map { (jobs[job].entity, jobs[job].position, $0) } }
    }
}
