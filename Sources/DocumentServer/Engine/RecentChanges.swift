import GraphCore

/// Which objects the latest commits changed, and in which: how the writer knows whether an
/// object a reader read from the database may be kept in a bounded cache's state.
///
/// A reader that missed reads the object from the database after taking a state at commit
/// `S` (``ReadState/sequence``), so what it read holds every commit up to `S`. If a commit after
/// `S` that the writer applied already changed the object, what the reader read may be older than
/// the writer's state: it is not kept. A commit the writer has not applied yet will replace it
/// when applied. Only the newest ``window`` commits are remembered: a read from a state older
/// than those is not kept (it would be unknown whether it is current).
struct RecentChanges {
    /// How many of the newest commits are remembered.
    let window: Int64
    /// The newest commit that changed each object, among the remembered ones.
    private var lastChange: [ObjectID: Int64] = [:]
    /// What each remembered commit changed, oldest first.
    private var commits: [(sequence: Int64, ids: [ObjectID])] = []
    private var first = 0
    /// The newest commit noted.
    private(set) var latest: Int64

    init(window: Int64 = 4096, latest: Int64) {
        self.window = max(1, window)
        self.latest = latest
    }

    /// Notes commit `sequence` (not older than the last one noted), which changed `ids`.
    mutating func note(_ sequence: Int64, changed ids: [ObjectID]) {
        latest = max(latest, sequence)
        if !ids.isEmpty {
            commits.append((sequence, ids))
            for id in ids { lastChange[id] = sequence }
        }
        // Forget the commits that left the window.
        while first < commits.count, commits[first].sequence <= latest - window {
            for id in commits[first].ids where lastChange[id] == commits[first].sequence { lastChange[id] = nil }
            first += 1
        }
        if first > 1024 && first * 2 > commits.count {
            commits.removeFirst(first)
            first = 0
        }
    }

    /// Whether an object read from the database by a reader at commit `readAt` holds every
    /// change the writer applied to it (it may then be kept).
    func isCurrent(_ id: ObjectID, readAt: Int64) -> Bool {
        guard readAt > latest - window else { return readAt >= latest }
        return (lastChange[id] ?? Int64.min) <= readAt
    }
}
