import Foundation

/// One long-lived thread that starts on saves' index jobs (``IndexUpkeep``) while the saving
/// threads write, for stores whose writes do not run the jobs themselves while they wait
/// (``AtomicStoreChanges/whileWriting``, which the JSON store's journal does): started on first
/// use, then parked on a condition between saves (no thread is made per save). Shared by every
/// store of the process; a save that finds it busy with another store's jobs runs its own jobs
/// itself, so it never waits for another store's work.
final class IndexUpkeepWorker: @unchecked Sendable {
    // Safe to share: `offered`, `started` and `offers` are only touched with `condition` locked; the
    // upkeeps themselves are safe to share (see ``IndexUpkeep``).
    static let shared = IndexUpkeepWorker()

    /// Below this many index entries to insert, move or remove, a save takes them in itself
    /// after its write: waking the worker (a few microseconds) would cost about what it saves.
    static let overlapThreshold = 32

    /// The time a store's write must have taken, per index entry of a save, for the save to
    /// hand its index jobs to the worker. An entry costs about 1-3 µs of CPU (most of it cache
    /// misses in a cold leaf), and more on the worker (its core does not hold the new nodes, and
    /// it is woken for each save): measured with durable saves of the JSON store whose
    /// `fdatasync` takes about 0.1 ms, the overlap cost more CPU and more time than it hid. It pays
    /// only when the write waits long enough for the worker to finish before it (a slow disk).
    static let writeNanosecondsPerOperation: UInt64 = 5_000

    /// Whether a save of `operations` index entries, on a store whose last write took
    /// `lastWrite` nanoseconds, should run its index jobs beside its write.
    static func overlaps(operations: Int, lastWrite: UInt64) -> Bool {
        guard operations >= overlapThreshold else { return false }
        let (needed, overflow) = UInt64(clamping: operations).multipliedReportingOverflow(by: writeNanosecondsPerOperation)
        return !overflow && lastWrite >= needed
    }

    private let condition = NSCondition()
    private var offered: [IndexUpkeep] = []
    private var started = false
    private var offers = 0

    /// How many saves have offered their jobs so far (for tests).
    var offerCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return offers
    }

    /// Hands `upkeep` to the worker, which runs its unclaimed jobs as soon as it gets to it.
    func offer(_ upkeep: IndexUpkeep) {
        condition.lock()
        offered.append(upkeep)
        offers += 1
        if !started {
            started = true
            let thread = Thread { [self] in
                ThreadName.set("index upkeep")
                self.serve()
            }
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while offered.isEmpty { condition.wait() }
            let upkeep = offered.removeFirst()
            condition.unlock()
            while upkeep.runNext() {}
        }
    }
}
