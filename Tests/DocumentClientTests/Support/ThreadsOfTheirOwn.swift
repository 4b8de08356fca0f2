import Foundation
import Testing

/// Runs a suite's tests, and the tasks they start (a `RemoteStore`'s change feed, a
/// `DocumentClient.changes` stream), on threads of their own instead of Swift's global executor.
///
/// ```swift
/// @Suite(.threadsOfTheirOwn) struct LiveChangeTests { … }
/// ```
///
/// The global executor has as many threads as the machine has cores, and a synchronous test
/// holds one for as long as it runs (a test of a server over PostgreSQL: tens of seconds). With
/// two cores, two such tests running in parallel stop every task of every other test until one
/// of them ends: a test that waits for a change feed to reconnect, which takes a dozen steps of
/// tasks, then ran out of its time limit (a run of this target's `LiveChangeTests` beside the
/// PostgreSQL server suites failed so, every time). Under this trait the tests' tasks never
/// wait for those threads. Unstructured tasks started in a test inherit its executor preference,
/// which is how a store's feed comes along.
struct ThreadsOfTheirOwn: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
    }
}

extension Trait where Self == ThreadsOfTheirOwn {
    /// The tests and the tasks they start run on threads of their own (``ThreadsOfTheirOwn``).
    static var threadsOfTheirOwn: Self { Self() }
}

/// A `TaskExecutor` that runs each job on a new thread: a job that blocks (a synchronous wait
/// of a test) holds only its own thread. A test's jobs are few and short-lived, so a thread
/// each costs less than the pool it would take to share them.
final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        thread.name = "test job"
        thread.start()
    }
}
