/// How long the writer lets a group of saves gather before it commits them (adaptive group
/// commit, as PostgreSQL's `commit_delay` and MySQL's `binlog_group_commit_sync_delay` do).
///
/// Without it, clients that save in a closed loop fall into a wasteful rhythm: the writer
/// answers a group of N saves, the first client to come back finds the writer idle and commits
/// alone, and the N - 1 others queue behind that commit and form the next group. Every second
/// commit then carries one save: measured over PostgreSQL with 50 clients, groups of 50 and 1
/// alternated, and the one-save commits, each a transaction with its own WAL flush, took as long
/// as the full ones.
///
/// So when fewer saves wait than the last group held, the writer waits for the rest, at most a
/// share of the last turn's time (``shareOfTurn``) and never longer than ``longestWait``. A
/// client saving alone (a group of one) never waits; a group that stays smaller (a client left)
/// costs one wait, after which the smaller group is the one expected.
///
/// Only over a shared database, where a commit is a transaction that waits for the database's
/// flush (milliseconds) and the writer would sit idle anyway. A store file's commit is one
/// `fdatasync` of a fraction of a millisecond, and there the writer staging the first saves
/// back while the event loop still reads the others keeps both cores busy.
struct GroupGathering {
    /// Whether the writer waits at all (over a shared database).
    let enabled: Bool
    /// The saves of the last turn that committed.
    private(set) var lastGroup = 0
    /// How long that turn took: staging, the durable write and the answers.
    private(set) var lastTurn: Duration = .zero

    /// The writer waits at most this fraction of the last turn's time...
    static let shareOfTurn = 2
    /// ...and never longer than this.
    static let longestWait: Duration = .milliseconds(2)

    /// What to wait for when `waiting` saves are queued: until `saves` are, or `for` has passed;
    /// nil to commit at once.
    func wait(whenWaiting waiting: Int) -> (saves: Int, for: Duration)? {
        guard enabled, lastGroup > 1, waiting < lastGroup else { return nil }
        let wait = min(lastTurn / Self.shareOfTurn, Self.longestWait)
        guard wait > .zero else { return nil }
        return (lastGroup, wait)
    }

    /// Notes a turn of `saves` saves that took `took`.
    mutating func turned(saves: Int, took: Duration) {
        lastGroup = saves
        lastTurn = took
    }

    /// `duration` in seconds, for a deadline of `NSCondition`.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
