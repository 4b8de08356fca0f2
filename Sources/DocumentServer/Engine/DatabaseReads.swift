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
    // @unchecked: `idle`, `open`, `queued` and each queued miss's `outcome` only with `condition`
    // locked; a reader (not Sendable) is used by one thread at a time, between `take` and `giveBack`.
    private let condition = NSCondition()
    private var idle: [any DatabaseObjectReader] = []
    private var open = 0
    /// Misses waiting for a connection, oldest first.
    private var queued: [QueuedMiss] = []
    /// Reads of misses running.
    private var missReads = 0
    /// The most reads of misses at once.
    let missReadLimit: Int

    /// The misses of one request, read by whichever thread gets a connection first.
    private final class QueuedMiss {
        let ids: [ObjectID]
        let readAt: Int64
        var outcome: Result<(objects: [ObjectID: ObjectSnapshot], through: Int64), Failure>?
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

    /// The objects `ids` names, read from the database after a state at commit `readAt` missed
    /// them (by the IDs asked for: an ID may name an ancestor entity of its object's), and handed
    /// to the writer to keep. An ID with no object is left out. `through`: the last commit when
    /// they had been read (none they hold is later).
    ///
    /// Read in one batch with the misses of other requests queued meanwhile.
    func load(_ ids: [ObjectID], readAt: Int64) throws(Failure) -> (objects: [ObjectID: ObjectSnapshot], through: Int64) {
        let mine = QueuedMiss(ids: ids, readAt: readAt)
        condition.lock()
        queued.append(mine)
        while mine.outcome == nil {
            // A connection free and misses queued: read them (this one among them, unless a
            // thread that had a connection took it already); else wait.
            guard !queued.isEmpty, missReads < missReadLimit, !idle.isEmpty || open < limit else {
                condition.wait()
                continue
            }
            let batch = takeBatch()
            missReads += 1
            condition.unlock()
            let outcomes = read(batch)
            condition.lock()
            missReads -= 1
            for (miss, outcome) in zip(batch, outcomes) { miss.outcome = outcome }
            condition.broadcast()
        }
        let outcome = mine.outcome
        condition.unlock()
        switch outcome {
        case .success(let found)?: return found
        case .failure(let failure)?: throw failure
        case nil: throw Failure(reason: "the read was not made")  // the loop ends only with an outcome
        }
    }

    /// The oldest queued misses, up to ``batchLimit`` IDs (at least one miss); `condition` locked.
    private func takeBatch() -> [QueuedMiss] {
        var count = 0
        var taken = 0
        while taken < queued.count, taken == 0 || count + queued[taken].ids.count <= Self.batchLimit {
            count += queued[taken].ids.count
            taken += 1
        }
        let batch = Array(queued[..<taken])
        queued.removeFirst(taken)
        return batch
    }

    /// Reads a batch of misses together on one connection, and hands what was found to the writer.
    private func read(_ batch: [QueuedMiss]) -> [Result<(objects: [ObjectID: ObjectSnapshot], through: Int64), Failure>] {
        var all: [ObjectID] = []
        var seen = Set<ObjectID>()
        for miss in batch {
            for id in miss.ids where seen.insert(id).inserted { all.append(id) }
        }
        let found: [ObjectSnapshot], through: Int64
        do {
            (found, through) = try with { try $0.committedSnapshots(of: all) }
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

    /// A fetch run in the database, with `explain` how, and the last commit when it had run.
    func fetch(_ request: FetchRequest, explain: Bool) throws -> (StoreFetchResult, plan: String?, through: Int64) {
        do {
            return try with { reader in
                let (result, through) = try reader.fetch(request)
                return (result, explain ? try reader.explain(request) : nil, through)
            }
        } catch let error as GraphError {
            switch error {
            case .unknownKey, .wrongKind, .typeMismatch, .timeLimitExceeded: throw error  // the request's fault: answered as such
            default: throw Failure(reason: "\(error)")
            }
        } catch let error as GraphCore.PredicateError {
            throw error
        } catch {
            throw Failure(reason: "\(error)")
        }
    }

    /// Runs `body` with a connection of the pool (made when none is idle and fewer than ``limit`` are open).
    func with<T>(_ body: (any DatabaseObjectReader) throws -> T) throws -> T {
        let reader = try take()
        defer { giveBack(reader) }
        return try body(reader)
    }

    private func take() throws -> any DatabaseObjectReader {
        condition.lock()
        while idle.isEmpty && open >= limit { condition.wait() }
        if let reader = idle.popLast() {
            condition.unlock()
            return reader
        }
        open += 1
        condition.unlock()
        do {
            return try makeReader()
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func giveBack(_ reader: any DatabaseObjectReader) {
        condition.lock()
        idle.append(reader)
        condition.broadcast()  // a reader waiting for a connection, or misses waiting to be read
        condition.unlock()
    }

    /// Closes the idle connections (at shutdown).
    func close() {
        condition.lock()
        let closing = idle
        idle = []
        open -= closing.count
        condition.unlock()
        for reader in closing { reader.close() }
    }
}
