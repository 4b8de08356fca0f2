import GraphCore
import NIOConcurrencyHelpers
import NIOCore

/// Where a bounded cache's reads of the database run when a connection's event loop can run
/// them: a ``GraphCore/DatabaseFetcher`` per event loop, with its connections to the database made
/// on that loop, so that a `fetch` one statement answers, or a `get` of objects the cache does not
/// hold, is read, sent, answered by the database and written back on the one thread
/// (``StoreWorker/submit(_:on:completion:)``). Any other read goes to a reader thread, as every
/// read did before (``DatabaseReads``).
final class LoopReads: @unchecked Sendable {
    // @unchecked: `open` (which reads the server's store) is called only with `loops` locked.
    private let open: () throws -> any DatabaseFetcher
    private let readLimit: Int
    private let admit: @Sendable (_ found: [ObjectSnapshot], _ readAt: Int64, _ missed: Int) -> Void
    private let loops = NIOLockedValueBox<[ObjectIdentifier: Loop]>([:])

    /// What one event loop reads with.
    struct Loop: Sendable {
        let executor: EventLoopExecutor
        let fetcher: any DatabaseFetcher
        let misses: LoopMisses
        let fetches: LoopFetches
    }

    /// `open` makes the fetcher of a loop, at its first read; at most `missReads` reads of
    /// misses run at once on a loop, and as many reads of fetches read together
    /// (``LoopFetches``); `admit` hands what the misses' reads read to the writer.
    init(open: @escaping () throws -> any DatabaseFetcher, missReads: Int,
         admit: @escaping @Sendable (_ found: [ObjectSnapshot], _ readAt: Int64, _ missed: Int) -> Void) {
        self.open = open
        readLimit = missReads
        self.admit = admit
    }

    /// What `loop` reads with.
    func on(_ loop: any EventLoop) throws -> Loop {
        let key = ObjectIdentifier(loop)
        return try loops.withLockedValue { loops in
            if let known = loops[key] { return known }
            let executor = EventLoopExecutor(loop)
            let fetcher = try open()
            let made = Loop(executor: executor, fetcher: fetcher,
                            misses: LoopMisses(executor: executor, fetcher: fetcher, readLimit: readLimit, admit: admit),
                            fetches: LoopFetches(executor: executor, fetcher: fetcher, readLimit: readLimit))
            loops[key] = made
            return made
        }
    }

    /// Closes every loop's connections (at shutdown).
    func close() {
        let all = loops.withLockedValue { loops in
            defer { loops = [:] }
            return Array(loops.values)
        }
        for loop in all { loop.fetcher.close() }
    }
}
