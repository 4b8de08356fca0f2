import Foundation
import GraphCore

/// The reads a server with a bounded cache makes in its database: the objects a `get` missed
/// and every `fetch` (as SQL), on connections of their own, so that they run beside the writer's
/// and each other's. A pool: a reader thread takes a connection for one read and gives it back;
/// at most ``limit`` are open at once (more reads wait for one).
///
/// Misses are batched: at most ``missReadLimit`` reads of misses run at once (a quarter of the
/// connections, at least one; fetches may use them all); while they do, the misses of other
/// requests queue, and the next read takes all of them, one statement per table
/// (``load(_:readAt:)``). Under load a statement then answers many requests, and PostgreSQL
/// parses, plans and sends back one statement where it would have many.
final class DatabaseReads: @unchecked Sendable {
    // @unchecked: `idle` and `open` only with `pool` locked; `queued`, `missReads` and each
    // queued miss's `outcome` only with `misses` locked (never both at once); a reader (not
    // Sendable) is used by one thread at a time, between `take` and `giveBack`.
    //
    // No broadcast: a connection given back wakes one thread waiting for one, and a read of
    // misses wakes the threads whose misses it read and, when misses are left, the thread of
    // the oldest (with 64 reader threads waiting on 8 connections, waking them all at each
    // read cost more CPU than the read: `perf` showed the futex wake-ups on top).
    private let pool = NSCondition()
    private var idle: [any DatabaseObjectReader] = []
    private var open = 0
    private let misses = NSLock()
    /// Misses waiting for a connection, oldest first.
    private var queued: [QueuedMiss] = []
    /// Reads of misses running.
    private var missReads = 0
    /// The most reads of misses at once.
    let missReadLimit: Int

    /// The misses of one request, read by whichever thread reads next; its thread waits on
    /// `wake` (signalled when the outcome is set, or when it should read the queue itself).
    private final class QueuedMiss {
        let ids: [ObjectID]
        let readAt: Int64
        var outcome: Result<(objects: [ObjectID: ObjectSnapshot], through: Int64), Failure>?
        /// Whether a read has taken it from the queue (its outcome comes when that read ends).
        var isTaken = false
        let wake = DispatchSemaphore(value: 0)
        init(ids: [ObjectID], readAt: Int64) {
            self.ids = ids
            self.readAt = readAt
        }
    }

    /// The most IDs one batch of misses reads.
    static let batchLimit = 4_096
    /// The most connections open at once.
    let limit: Int
    private let makeReader: () throws -> any DatabaseObjectReader
    /// Hands the objects a `get` read to the writer, which keeps those it may
    /// (``StoreWorker/admit(_:readAt:)``).
    private let admit: @Sendable ([ObjectSnapshot], _ readAt: Int64) -> Void
    /// The published state once it holds commit `through` (the writer takes the commits up to
    /// it; nil when it did not within the wait a read with `after` has).
    let stateHolding: @Sendable (_ through: Int64) -> ReadState?

    /// A read of the database that failed (the connection, a statement): answered as the store
    /// being unavailable, with the database's reason.
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "the database cannot be read: \(reason)" }
    }

    init(limit: Int, makeReader: @escaping () throws -> any DatabaseObjectReader,
         admit: @escaping @Sendable ([ObjectSnapshot], _ readAt: Int64) -> Void,
         stateHolding: @escaping @Sendable (_ through: Int64) -> ReadState?) {
        self.limit = max(1, limit)
        missReadLimit = max(1, limit / 4)
        self.makeReader = makeReader
        self.admit = admit
        self.stateHolding = stateHolding
    }

    /// The objects `ids` names, read from the database after a state at commit `readAt`
    /// missed them (by the IDs asked for: an ID may name an ancestor entity of its object's), and
    /// handed to the writer to keep. An ID with no object is left out. `through`: the last commit
    /// when they had been read (none they hold is later).
    ///
    /// Read in one batch with the misses of other requests queued meanwhile: a thread with a
    /// read slot free takes a connection first, then every miss queued by then.
    func load(_ ids: [ObjectID], readAt: Int64) throws(Failure) -> (objects: [ObjectID: ObjectSnapshot], through: Int64) {
        let mine = QueuedMiss(ids: ids, readAt: readAt)
        misses.lock()
        queued.append(mine)
        while mine.outcome == nil {
            guard !mine.isTaken, missReads < missReadLimit else {
                misses.unlock()
                mine.wake.wait()
                misses.lock()
                continue
            }
            missReads += 1
            misses.unlock()
            readQueued()
            misses.lock()
        }
        let outcome = mine.outcome
        misses.unlock()
        switch outcome {
        case .success(let found)?: return found
        case .failure(let failure)?: throw failure
        case nil: throw Failure(reason: "the read was not made")  // the loop ends only with an outcome
        }
    }

    /// With a read slot counted in `missReads` (`misses` not locked): takes a connection, reads
    /// every miss queued by then, sets their outcomes and wakes their threads, and frees the slot
    /// (waking the thread of the oldest miss left, which reads next).
    private func readQueued() {
        let connection = Result { try take() }
        misses.lock()
        let batch = takeBatch()
        // More queued than one batch takes, and a slot free: the oldest left reads them now.
        let alongside = missReads < missReadLimit ? queued.first : nil
        misses.unlock()
        alongside?.wake.signal()
        let outcomes: [Result<(objects: [ObjectID: ObjectSnapshot], through: Int64), Failure>]
        switch connection {
        case .success(let reader):
            outcomes = batch.isEmpty ? [] : read(batch, on: reader)
            giveBack(reader)
        case .failure(let error):
            outcomes = batch.map { _ in .failure(Failure(reason: "\(error)")) }
        }
        misses.lock()
        missReads -= 1
        for (miss, outcome) in zip(batch, outcomes) { miss.outcome = outcome }
        let next = queued.first
        misses.unlock()
        for miss in batch { miss.wake.signal() }
        next?.wake.signal()
    }

    /// The oldest queued misses, up to ``batchLimit`` IDs (at least one miss, none when none is
    /// queued); `misses` locked.
    private func takeBatch() -> [QueuedMiss] {
        var count = 0
        var taken = 0
        while taken < queued.count, taken == 0 || count + queued[taken].ids.count <= Self.batchLimit {
            count += queued[taken].ids.count
            taken += 1
        }
        let batch = Array(queued[..<taken])
        queued.removeFirst(taken)
        for miss in batch { miss.isTaken = true }
        return batch
    }

    /// Reads a batch of misses together on `reader`, and hands what was found to the writer.
    private func read(_ batch: [QueuedMiss], on reader: any DatabaseObjectReader)
        -> [Result<(objects: [ObjectID: ObjectSnapshot], through: Int64), Failure>] {
        var all: [ObjectID] = []
        var seen = Set<ObjectID>()
        for miss in batch {
            for id in miss.ids where seen.insert(id).inserted { all.append(id) }
        }
        let found: [ObjectSnapshot], through: Int64
        do {
            (found, through) = try reader.committedSnapshots(of: all)
        } catch {
            return batch.map { _ in .failure(Failure(reason: "\(error)")) }
        }
        EngineMeters.shared.cacheMissed(all.count)
        // The oldest state that missed: the writer keeps only what no commit after it changed.
        if !found.isEmpty, let readAt = batch.map(\.readAt).min() { admit(found, readAt) }
        var byID: [ObjectID: ObjectSnapshot] = [:]
        for snapshot in found { byID[snapshot.objectID] = snapshot }  // IDs of one hierarchy are equal
        return batch.map { miss in
            var objects: [ObjectID: ObjectSnapshot] = [:]
            for id in miss.ids { objects[id] = byID[id] }
            return .success((objects, through))
        }
    }

    /// Hands objects read from the database in a connection's task (``LoopReads``) after a
    /// state at commit `readAt` missed `missed` objects to the writer to keep, as a read of misses
    /// here does.
    func admitRead(_ found: [ObjectSnapshot], readAt: Int64, missed: Int) {
        EngineMeters.shared.cacheMissed(missed)
        if !found.isEmpty { admit(found, readAt) }
    }

    /// A fetch run in the database, with `explain` how, and the last commit when it had run.
    func fetch(_ request: FetchRequest, explain: Bool) throws -> (StoreFetchResult, plan: String?, through: Int64) {
        do {
            return try with { reader in
                let (result, through) = try reader.fetch(request)
                return (result, explain ? try reader.explain(request) : nil, through)
            }
        } catch {
            throw Self.classified(error)
        }
    }

    /// What an error of a fetch in the database is answered as: the request's fault as such (a
    /// key or a value the model does not have, a predicate, the time limit, a result too large
    /// for an answer), anything else as the database being unavailable (a ``Failure``).
    static func classified(_ error: any Error) -> any Error {
        switch error {
        case let error as GraphError:
            switch error {
            case .unknownKey, .wrongKind, .typeMismatch, .timeLimitExceeded, .resultTooLarge: return error
            default: return Failure(reason: "\(error)")
            }
        case let error as GraphCore.PredicateError: return error
        default: return Failure(reason: "\(error)")
        }
    }

    /// Runs `body` with a connection of the pool (made when none is idle and fewer than ``limit`` are open).
    func with<T>(_ body: (any DatabaseObjectReader) throws -> T) throws -> T {
        let reader = try take()
        defer { giveBack(reader) }
        return try body(reader)
    }

    private func take() throws -> any DatabaseObjectReader {
        pool.lock()
        while idle.isEmpty && open >= limit { pool.wait() }
        if let reader = idle.popLast() {
            pool.unlock()
            return reader
        }
        open += 1
        pool.unlock()
        do {
            return try makeReader()
        } catch {
            pool.lock()
            open -= 1
            pool.signal()
            pool.unlock()
            throw error
        }
    }

    private func giveBack(_ reader: any DatabaseObjectReader) {
        pool.lock()
        idle.append(reader)
        pool.signal()  // one thread waiting for a connection
        pool.unlock()
    }

    /// Closes the idle connections (at shutdown).
    func close() {
        pool.lock()
        let closing = idle
        idle = []
        open -= closing.count
        pool.unlock()
        for reader in closing { reader.close() }
    }
}
