import GraphCore
import NIOCore

/// The fetches `key == value` of one event loop's connections (a plain equality of a string
/// attribute, no sort, no page: the indexed lookup clients make most), read from the database
/// on that loop (``LoopReads``) and together: at most ``readLimit`` reads run at once, and the
/// fetches of one entity and key that come while they do wait and go in the next read, all in
/// one statement (``GraphCore/DatabaseFetcher/fetchEqualities(entityName:key:values:resultBytesLimit:)``), as
/// ``LoopMisses`` reads the misses of `get`s. Each fetch gets the objects its own statement
/// would have given. Under load a statement then answers many requests: postgres-nio's sending
/// and reading of each fetch's statement was about 30 % of the server's CPU in the fetches of
/// a profile, besides its socket calls (`docs/SCALING.md`).
///
/// Used on its loop only: its reads run as tasks on the loop's executor.
final class LoopFetches: @unchecked Sendable {
    // @unchecked: every property is used on `executor.loop` only (asserted).
    private let executor: EventLoopExecutor
    private let fetcher: any DatabaseFetcher
    /// The most reads at once.
    let readLimit: Int
    /// The most fetches one read answers.
    static let batchLimit = 1_024
    private var reading = 0
    private var queued: [Waiter] = []

    /// The entity and attribute of fetches read together.
    struct Equality: Equatable {
        let entityName: String
        let key: String
    }

    /// One fetch and where its objects go (nil: the fetcher cannot read such fetches together).
    private struct Waiter {
        let equality: Equality
        let value: String
        /// The most bytes of rows its fetch alone may read (``GraphCore/FetchRequest/resultBytesLimit``).
        let limit: Int?
        let continuation: CheckedContinuation<(objects: [ObjectSnapshot], through: Int64)?, any Error>
    }

    init(executor: EventLoopExecutor, fetcher: any DatabaseFetcher, readLimit: Int) {
        self.executor = executor
        self.fetcher = fetcher
        self.readLimit = max(1, readLimit)
    }

    /// The equality and value of a fetch a read here may answer: objects (not IDs, not a count,
    /// no `explain`) of an entity and its subentities whose one key (no key path) equals a string
    /// as written (no `[c]`, `[d]`), neither sorted nor paged; nil for any other. Whether the key
    /// is a string attribute the fetcher says (else it answers nil).
    static func equality(of call: FetchCall) -> (equality: Equality, value: String)? {
        let request = call.request
        guard call.resultType == .objects, !call.explain, request.fetchLimit == 0, request.fetchOffset == 0,
              request.sortDescriptors.isEmpty, request.includesSubentities, request.propertiesToFetch == nil,
              request.affectedStoreIdentifiers == nil,
              case .comparison(let comparison)? = request.predicate, comparison.op == .equal, comparison.modifier == .direct,
              comparison.options.isEmpty, case .keyPath(let key) = comparison.left, !key.isEmpty, !key.contains("."),
              case .constant(.string(let value)) = comparison.right,
              // PostgreSQL's text holds no NUL: such a value fails its own statement, not the others'.
              !value.utf8.contains(0) else { return nil }
        return (Equality(entityName: request.entityName, key: key), value)
    }

    /// The objects of the fetch `equality` == `value` as the database holds them, and the last
    /// commit they may hold; nil when the fetcher cannot read it with others (or the fetches read
    /// with it took more than their `limit`s of bytes of rows together). On the loop.
    func read(_ equality: Equality, value: String, limit: Int?) async throws -> (objects: [ObjectSnapshot], through: Int64)? {
        try await withCheckedThrowingContinuation { continuation in
            executor.loop.assertInEventLoop()
            queued.append(Waiter(equality: equality, value: value, limit: limit, continuation: continuation))
            startReads()
        }
    }

    /// Starts reads of the queued fetches while fewer than ``readLimit`` run: each takes the
    /// oldest fetch and those of its entity and key queued after it.
    private func startReads() {
        while reading < readLimit, let first = queued.first {
            var batch: [Waiter] = []
            var left: [Waiter] = []
            for waiter in queued {
                if batch.count < Self.batchLimit, waiter.equality == first.equality { batch.append(waiter) } else { left.append(waiter) }
            }
            queued = left
            reading += 1
            Task(executorPreference: executor) { await self.read(batch) }
        }
    }

    /// The most bytes of rows a read of `batch` may take: the sum of its fetches' limits (nil
    /// when one has none).
    private static func limit(of batch: [Waiter]) -> Int? {
        var total = 0
        for waiter in batch {
            guard let limit = waiter.limit else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(limit)
            total = overflow ? Int.max : sum
        }
        return total
    }

    private func read(_ batch: [Waiter]) async {
        let outcome: Result<(objects: [[ObjectSnapshot]], through: Int64)?, any Error>
        do {
            let equality = batch[0].equality  // a batch is never empty
            outcome = .success(try await fetcher.fetchEqualities(entityName: equality.entityName, key: equality.key,
                                                                 values: batch.map(\.value), resultBytesLimit: Self.limit(of: batch)))
        } catch {
            outcome = .failure(error)
        }
        executor.loop.assertInEventLoop()
        reading -= 1
        switch outcome {
        case .success(let found?):
            for (index, waiter) in batch.enumerated() {
                let objects = found.objects.indices.contains(index) ? found.objects[index] : []
                waiter.continuation.resume(returning: (objects, found.through))
            }
        case .success(nil):
            for waiter in batch { waiter.continuation.resume(returning: nil) }
        case .failure(let error):
            for waiter in batch { waiter.continuation.resume(throwing: error) }
        }
        startReads()
    }
}
