import DocumentProtocol
import Foundation
import GraphCore

/// Work for the store thread.
enum StoreJob: Sendable {
    case fetch(FetchCall)
    case get(GetCall)
    case save(SaveCall)
}

/// The one thread that owns the server's ``StoreGraph``: connections hand it jobs and await
/// the answers, so the graph needs no locks and saves are applied strictly one after another.
///
/// Each turn takes every job waiting: the reads first (they see only committed state), then
/// the saves, which are staged together and written with one durable save (group commit).
/// While that write runs, new jobs queue up for the next turn.
final class StoreWorker: @unchecked Sendable {
    // @unchecked: `graph` is touched only by the worker thread (and by `init`/`stop`, before
    // it starts and after it ended); `jobs` and `state` only with `condition` locked.
    private enum Job {
        case read(@Sendable (StoreGraph) -> Void)
        case save(SaveCall, @Sendable (Reply) -> Void)
    }

    private enum State {
        case idle, running, stopping, stopped
    }

    private let graph: StoreGraph
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var state = State.idle
    private let finished = DispatchSemaphore(value: 0)
    /// How long one fetch may hold the thread (nil: no limit); past it the fetch fails with
    /// ``RPCError`` code -32007 and the thread goes on with the next job.
    private let requestTimeLimit: Duration?

    init(graph: StoreGraph, requestTimeLimit: Duration? = nil) {
        self.graph = graph
        self.requestTimeLimit = requestTimeLimit
    }

    /// Starts the thread.
    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard state == .idle else { return }
        state = .running
        let thread = Thread { [self] in run() }
        thread.name = "docserver store"
        thread.stackSize = 16 << 20  // deep predicates and cascades recurse
        thread.start()
    }

    /// Runs a job on the store thread; `completion` gets its answer there (a save's once it
    /// is durable or failed).
    func submit(_ job: StoreJob, completion: @escaping @Sendable (Reply) -> Void) {
        switch job {
        case .fetch(let call):
            let limit = requestTimeLimit
            // The clock starts when the store thread takes the fetch, not while it waits in line.
            enqueue(.read { completion($0.fetch(call.started(timeLimit: limit))) }, refused: completion)
        case .get(let call): enqueue(.read { completion($0.get(call)) }, refused: completion)
        case .save(let call): enqueue(.save(call, completion), refused: completion)
        }
    }

    /// Runs a job on the store thread and returns its answer.
    func perform(_ job: StoreJob) async -> Reply {
        await withCheckedContinuation { continuation in
            submit(job) { continuation.resume(returning: $0) }
        }
    }

    private func enqueue(_ job: Job, refused: (Reply) -> Void) {
        condition.lock()
        guard state == .running else {
            condition.unlock()
            refused(.error(.storeUnavailable("the server is shutting down")))
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Finishes every job already queued, refuses new ones, ends the thread and closes the
    /// store (releasing its lock).
    func stop() {
        condition.lock()
        let wasRunning = state == .running
        if state == .running || state == .idle { state = .stopping }
        condition.signal()
        condition.unlock()
        if wasRunning { finished.wait() }
        condition.lock()
        let close = state != .stopped
        state = .stopped
        condition.unlock()
        if close { graph.close() }
    }

    private func run() {
        graph.planCacheWarmUp()
        var warming = true
        while true {
            condition.lock()
            // Between jobs, the cache fills up in small steps, so no request waits long for it.
            while warming && jobs.isEmpty && state == .running {
                condition.unlock()
                warming = graph.warmCache(count: 256)
                condition.lock()
            }
            while jobs.isEmpty && state == .running { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                break
            }
            let turn = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()

            for case .read(let body) in turn { body(graph) }
            for case .save(let call, let reply) in turn { graph.stage(call, reply: reply) }
            graph.commit()
        }
        finished.signal()
    }
}
