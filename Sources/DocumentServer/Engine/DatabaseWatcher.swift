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
    private let wake: @Sendable (_ noticed: Int64?) -> Void
    private let condition = NSCondition()
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)
    private var started = false

    /// A watcher of `history` that calls `wake` when it holds a commit newer than
    /// `publisher`'s state, with that commit's number when known.
    init(history: any CommitHistoryReader, publisher: StatePublisher, interval: TimeInterval = 1,
         wake: @escaping @Sendable (_ noticed: Int64?) -> Void) {
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

    /// What a notified commit does: wakes the writer, unless the state already holds the commit
    /// (the usual case for this server's own commits, whose notifications come back to it too).
    private var onCommit: @Sendable (Int64?) -> Void {
        { [publisher, wake] last in
            if let last, last <= publisher.current.sequence { return }
            wake(last)
        }
    }

    private func run() {
        try? history.listenForCommits(onCommit)
        while true {
            condition.lock()
            if !stopped { _ = condition.wait(until: Date().addingTimeInterval(interval)) }
            let done = stopped
            condition.unlock()
            if done { break }
            // Failures are tried again at the next turn (reads report their own).
            if !history.isListening { try? history.listenForCommits(onCommit) }
            let latest = try? history.latestSequence()
            if let latest { EngineMeters.shared.databaseHolds(latest, applied: publisher.current.sequence) }
            if let latest, latest > publisher.current.sequence { wake(latest) }
        }
        finished.signal()
    }
}
