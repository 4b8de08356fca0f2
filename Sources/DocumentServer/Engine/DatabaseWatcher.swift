import Foundation
import GraphCore

/// Watches a shared database for commits of other servers, so that subscriptions receive them
/// without waiting for a read or a save of this server: it listens for the commits'
/// notifications (`LISTEN`/`NOTIFY`) and has the writer catch up on each; and every
/// ``interval``, in case a notification was missed (a lost listening connection, made again
/// then), it asks for the number of the last commit and has the writer catch up when the
/// published state is older. Runs on a thread of its own; its queries block only it.
final class DatabaseWatcher: @unchecked Sendable {
    // @unchecked: `stopped` is touched only with `condition` locked.
    private let history: any CommitHistoryReader
    private let publisher: StatePublisher
    private let interval: TimeInterval
    private let wake: @Sendable () -> Void
    private let condition = NSCondition()
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)
    private var started = false

    /// A watcher of `history` that calls `wake` when it holds a commit newer than
    /// `publisher`'s state.
    init(history: any CommitHistoryReader, publisher: StatePublisher, interval: TimeInterval = 1, wake: @escaping @Sendable () -> Void) {
        self.history = history
        self.publisher = publisher
        self.interval = interval
        self.wake = wake
    }

    /// Starts the thread.
    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard !started, !stopped else { return }
        started = true
        let thread = Thread { [self] in run() }
        thread.name = "docserver database watcher"
        thread.start()
    }

    /// Ends the thread (waits for it).
    func stop() {
        condition.lock()
        let wasStarted = started && !stopped
        stopped = true
        condition.signal()
        condition.unlock()
        if wasStarted { finished.wait() }
    }

    private func run() {
        try? history.listenForCommits(wake)
        while true {
            condition.lock()
            if !stopped { _ = condition.wait(until: Date().addingTimeInterval(interval)) }
            let done = stopped
            condition.unlock()
            if done { break }
            // Failures are tried again at the next turn (reads report their own).
            if !history.isListening { try? history.listenForCommits(wake) }
            let latest = try? history.latestSequence()
            if let latest { EngineMeters.shared.databaseHolds(latest, applied: publisher.current.sequence) }
            if let latest, latest > publisher.current.sequence { wake() }
        }
        finished.signal()
    }
}
