import Foundation
import GraphCore

/// The commits a listening server received with their notifications, so that it can take
/// another server's commit without reading the history table back.
///
/// A commit's `NOTIFY` carries its history rows (``CommitHistory``: a JSON array of
/// `[seq, committed_at, author, entities, refs, kinds, previous]`, one per save) when they fit in
/// PostgreSQL's payload, else only its last number. PostgreSQL delivers notifications in commit
/// order, which the numbering lock makes `seq` order; a notification can still be missed (a lost
/// listening connection) or come late (another connection's commit seen before its notification
/// arrived). So ``commits(after:through:limit:)`` answers only with an unbroken run of numbers
/// starting right after the one asked for, and, when a last number is asked for, only when the run
/// reaches it; otherwise it answers nil and the caller reads the history table, as without notices.
///
/// At most ``capacity`` commits are kept: the oldest are dropped first, and the ones the caller
/// has passed are dropped when it asks.
final class CommitNotices: @unchecked Sendable {
    // @unchecked: `received` is touched only with `lock` held.
    private let lock = NSLock()
    /// In increasing order of number, not necessarily without gaps; their objects' previous
    /// values read only when asked for.
    private var received: [NoticedCommit] = []
    /// Reads the objects' previous values (none are read without it).
    private let previous: PreviousValuesReader?

    /// Notices whose objects' previous values are read with `previous`.
    init(previous: PreviousValuesReader? = nil) {
        self.previous = previous
    }

    /// Commits kept at most (a server that stops asking keeps no more than this).
    static let capacity = 4_096

    /// Keeps the commits `payload` carries (nothing for a payload with only a number, or one
    /// that cannot be read: the history table has them), and returns the last number it names.
    @discardableResult
    func receive(_ payload: String) -> Int64? {
        guard payload.first == "[" else { return Int64(payload) }
        guard let commits = Self.noticed(in: payload), let first = commits.first?.commit, let last = commits.last?.commit else { return nil }
        lock.withLock {
            // Numbers that do not follow the last kept (a listener made again, a database
            // restored) start the list over.
            if let last = received.last?.commit, first.sequence <= last.sequence { received.removeAll(keepingCapacity: true) }
            received.append(contentsOf: commits)
            if received.count > Self.capacity { received.removeFirst(received.count - Self.capacity / 2) }
        }
        return last.sequence
    }

    /// Up to `limit` commits after number `after`, in order, from the notices, when they hold the
    /// one numbered `after + 1` and, with `through`, every one up to it; else nil.
    func commits(after: Int64, through: Int64?, limit: Int) -> [StoreCommit]? {
        guard limit > 0 else { return nil }
        let run = lock.withLock { () -> [NoticedCommit]? in
            // The ones at or before `after` are not asked for again.
            let passed = received.prefix { $0.commit.sequence <= after }.count
            if passed > 0 { received.removeFirst(passed) }
            guard after < .max, let first = received.first, first.commit.sequence == after + 1 else { return nil }
            var run: [NoticedCommit] = []
            var expected = first.commit.sequence
            for noticed in received {
                guard noticed.commit.sequence == expected, run.count < limit else { break }
                if let through, noticed.commit.sequence > through { break }
                run.append(noticed)
                if expected == .max { break }
                expected += 1
            }
            if let through, let last = run.last, last.commit.sequence < through, run.count < limit { return nil }
            return run
        }
        // Read outside the lock: the listener's thread goes on keeping notices meanwhile.
        return run?.map { $0.commit(previous: previous) }
    }
}
