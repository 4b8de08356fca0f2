import DequeModule
import Foundation

/// Threads that run reads (`fetch`, large `get`s) on published states, as many as the
/// machine has cores by default, beside the writer thread.
///
/// Jobs run in the order they came, each on the first free thread. ``stop()`` lets the
/// queued jobs finish, then ends the threads.
final class ReaderPool: @unchecked Sendable {
    // @unchecked: `jobs` and `state` are touched only with `condition` locked.
    private enum State {
        case idle, running, stopped
    }

    private let condition = NSCondition()
    private var jobs = Deque<@Sendable () -> Void>()
    private var state = State.idle
    private let finished = DispatchSemaphore(value: 0)
    /// How many threads read.
    let threadCount: Int

    /// A pool of `threadCount` threads (at least one), started by ``start()``.
    init(threadCount: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.threadCount = max(1, threadCount)
    }

    /// Starts the threads.
    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard state == .idle else { return }
        state = .running
        for index in 0..<threadCount {
            let thread = Thread { [self] in
                CurrentThread.setName("docserver read\(index + 1)")
                run()
            }
            thread.name = "docserver reader \(index + 1)"
            thread.stackSize = 16 << 20  // deep predicates recurse
            thread.start()
        }
    }

    /// Queues `job`; false when the pool is not running (then it is not run).
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard state == .running else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Runs every job queued, then ends the threads.
    func stop() {
        condition.lock()
        let wasRunning = state == .running
        state = .stopped
        condition.broadcast()
        condition.unlock()
        if wasRunning { for _ in 0..<threadCount { finished.wait() } }
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && state == .running { condition.wait() }
            guard let job = jobs.popFirst() else {
                condition.unlock()
                break
            }
            condition.unlock()
            job()
        }
        finished.signal()
    }
}
