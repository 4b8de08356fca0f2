import GraphCore
import NIOCore

/// The objects the `get`s of one event loop's connections miss, read from the database on that
/// loop (``LoopReads``) and together: at most ``readLimit`` reads run at once, and the misses
/// that come while they do wait and go in the next read, all of them in one statement per table
/// (as ``DatabaseReads`` batches the reader threads' misses). Under load a statement then answers
/// many requests.
///
/// Used on its loop only: its reads run as tasks on the loop's executor.
final class LoopMisses: @unchecked Sendable {
    // @unchecked: every property is used on `executor.loop` only (asserted).
    private let executor: EventLoopExecutor
    private let fetcher: any DatabaseFetcher
    /// Hands what a read found to the writer (``DatabaseReads/admitRead(_:readAt:missed:)``).
    private let admit: @Sendable (_ found: [ObjectSnapshot], _ readAt: Int64, _ missed: Int) -> Void
    /// The most reads of misses at once.
    let readLimit: Int
    private var reading = 0
    private var queued: [Waiter] = []

    /// The misses of one request and where their objects go.
    private struct Waiter {
        let ids: [ObjectID]
        let readAt: Int64
        let continuation: CheckedContinuation<(snapshots: [ObjectSnapshot], through: Int64), any Error>
    }

    init(executor: EventLoopExecutor, fetcher: any DatabaseFetcher, readLimit: Int,
         admit: @escaping @Sendable (_ found: [ObjectSnapshot], _ readAt: Int64, _ missed: Int) -> Void) {
        self.executor = executor
        self.fetcher = fetcher
        self.readLimit = max(1, readLimit)
        self.admit = admit
    }

    /// The objects `ids` names as the database holds them (those found: a deleted object is
    /// not), after a state at commit `readAt` missed them, and the last commit they may hold. On
    /// the loop.
    func read(_ ids: [ObjectID], readAt: Int64) async throws -> (snapshots: [ObjectSnapshot], through: Int64) {
        try await withCheckedThrowingContinuation { continuation in
            executor.loop.assertInEventLoop()
            queued.append(Waiter(ids: ids, readAt: readAt, continuation: continuation))
            startReads()
        }
    }

    /// Starts reads of the queued misses while fewer than ``readLimit`` run.
    private func startReads() {
        while reading < readLimit, !queued.isEmpty {
            var count = 0, taken = 0
            while taken < queued.count, taken == 0 || count + queued[taken].ids.count <= DatabaseReads.batchLimit {
                count += queued[taken].ids.count
                taken += 1
            }
            let batch = Array(queued[..<taken])
            queued.removeFirst(taken)
            reading += 1
            Task(executorPreference: executor) { await self.read(batch) }
        }
    }

    private func read(_ batch: [Waiter]) async {
        var all: [ObjectID] = []
        var seen = Set<ObjectID>()
        for waiter in batch {
            for id in waiter.ids where seen.insert(id).inserted { all.append(id) }
        }
        let outcome: Result<(snapshots: [ObjectSnapshot], through: Int64), any Error>
        do {
            let found = try await fetcher.committedSnapshots(of: all)
            // The oldest state that missed: the writer keeps only what no commit after it changed.
            admit(found.snapshots, batch.map(\.readAt).min() ?? 0, all.count)
            outcome = .success(found)
        } catch {
            outcome = .failure(error)
        }
        executor.loop.assertInEventLoop()
        reading -= 1
        switch outcome {
        case .success(let found) where batch.count > 1:
            // Each request gets its own objects, not the whole read's: under load a read answers
            // dozens of requests, and each of them would otherwise copy, look through and free
            // every object of all of them.
            var byID: [ObjectID: ObjectSnapshot] = [:]
            byID.reserveCapacity(found.snapshots.count)
            for snapshot in found.snapshots { byID[snapshot.objectID] = snapshot }  // IDs of one hierarchy are equal
            for waiter in batch {
                waiter.continuation.resume(returning: (waiter.ids.compactMap { byID[$0] }, found.through))
            }
        default:
            for waiter in batch { waiter.continuation.resume(with: outcome) }
        }
        startReads()
    }
}
