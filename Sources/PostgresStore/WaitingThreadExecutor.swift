import Foundation

/// Runs an async operation to its end on the thread that waits for it: the operation's task
/// prefers this executor, so each of its jobs (its start, and every resumption after it awaited
/// the event loop) is run by the waiting thread, never by Swift's shared pool.
///
/// A store's calls are synchronous and may come from the shared pool's own threads (an async
/// caller); waiting there for a task that needs that pool would starve it. Here the task needs
/// no thread but the one that waits.
final class WaitingThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `finished` only with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `operation` and returns its result (or throws its error), on this thread.
    ///
    /// The operation is given up when it waits for a statement's answer that `wait`'s
    /// connection closed without sending (``StatementWait``): this thread then throws
    /// ``StatementWait/Stranded`` and the operation's task is left suspended (a job it may still
    /// enqueue is never run).
    static func run<T: Sendable>(waitingOn wait: StatementWait,
                                 _ operation: @escaping @Sendable () async throws -> T) throws -> T {
        let executor = WaitingThreadExecutor()
        let outcome = Outcome<T>()
        Task(executorPreference: executor) {
            do {
                outcome.result = .success(try await operation())
            } catch {
                outcome.result = .failure(error)
            }
            executor.finish()
        }
        try executor.runJobsUntilFinished(waitingOn: wait)
        guard let result = outcome.result else { throw CancellationError() }  // set before `finish`
        return try result.get()
    }

    private func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func runJobsUntilFinished(waitingOn wait: StatementWait) throws {
        let unowned = asUnownedTaskExecutor()
        var wait = wait
        while true {
            condition.lock()
            do {
                try wait.wait(on: condition) { jobs.isEmpty && !finished }
            } catch {
                condition.unlock()
                throw error
            }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: unowned)
        }
    }
}

/// What an operation run by ``WaitingThreadExecutor/run(_:)`` ended with: written by the task's
/// last job and read after it, both on the waiting thread.
private final class Outcome<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
