import Foundation

/// What one save changes in a store's indexes, as one job per index it touches: each job
/// takes the save's inserted, updated and removed nodes of the index's entity into that index
/// (in that order, as ``StoreIndexes/apply(inserted:updated:removed:)`` does).
///
/// The saving thread usually runs the jobs itself while its store waits for the disk (the JSON
/// store's journal syncs on another thread meanwhile: ``AtomicStoreChanges/whileWriting``).
/// Jobs of different indexes touch different trees and only read the nodes, so they may also run
/// on different threads: for a store that does not, ``AtomicStore/save(_:)`` offers the upkeep to the
/// ``IndexUpkeepWorker``, which starts on the jobs while the caller writes the save (a journal
/// append waits for `fdatasync`, the CPU idle meanwhile), and the caller then runs whatever
/// jobs are left itself and waits for those the worker took (``finish()``). A job is claimed
/// under the lock by exactly one thread, so when the worker is late or busy the caller does all
/// the work, as without a worker, at the cost of a lock and a wake-up.
final class IndexUpkeep: @unchecked Sendable {
    // Safe to share: `jobs` is never changed after `init`; job `j` (and the one index it
    // changes) is run by the one thread that claimed it, `next` and `finished` are only touched
    // with `condition` locked, and ``finish()`` returns only after every claimed job has
    // finished (the lock orders the worker's changes before the caller's next reads). The nodes
    // are only read, by the jobs and by the caller's write alike (see `AtomicStore.save(changes:)`).
    private struct Job {
        let index: AttributeIndex
        let inserted: [CacheNode]
        let updated: [(node: CacheNode, values: [Value])]
        let removed: [CacheNode]

        var operations: Int { inserted.count + updated.count + removed.count }

        func run() {
            index.insert(contentsOf: inserted)
            for (node, values) in updated { index.update(node, from: values) }
            for node in removed { index.remove(node, values: node.values) }
        }
    }

    private let jobs: [Job]
    private let condition = NSCondition()
    /// The next job nobody has claimed.
    private var next = 0
    /// How many claimed jobs have finished.
    private var finished = 0

    /// The jobs of one save over `indexes` (by concrete entity); nil when the save touches no
    /// index.
    init?(_ indexes: [String: [AttributeIndex]], inserted: [CacheNode], updated: [(node: CacheNode, values: [Value])],
          removed: [CacheNode]) {
        guard !indexes.isEmpty else { return nil }
        var byEntity: [String: (inserted: [CacheNode], updated: [(node: CacheNode, values: [Value])], removed: [CacheNode])] = [:]
        for node in inserted where indexes[node.objectID.entityName] != nil {
            byEntity[node.objectID.entityName, default: ([], [], [])].inserted.append(node)
        }
        for change in updated where indexes[change.node.objectID.entityName] != nil {
            byEntity[change.node.objectID.entityName, default: ([], [], [])].updated.append(change)
        }
        for node in removed where indexes[node.objectID.entityName] != nil {
            byEntity[node.objectID.entityName, default: ([], [], [])].removed.append(node)
        }
        var jobs: [Job] = []
        for entity in byEntity.keys.sorted() {
            guard let changes = byEntity[entity] else { continue }
            for index in indexes[entity] ?? [] {
                jobs.append(Job(index: index, inserted: changes.inserted, updated: changes.updated, removed: changes.removed))
            }
        }
        guard !jobs.isEmpty else { return nil }
        self.jobs = jobs
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
        let job = jobs[next]
        next += 1
        condition.unlock()
        job.run()
        condition.lock()
        finished += 1
        if finished == jobs.count { condition.broadcast() }
        condition.unlock()
        return true
    }

    /// Runs the jobs nobody has claimed, then waits until those others claimed have finished:
    /// afterwards every index holds the save and no other thread touches one.
    func finish() {
        while runNext() {}
        condition.lock()
        while finished < jobs.count { condition.wait() }
        condition.unlock()
    }
}
