import Foundation

/// One long-lived thread that starts on saves' index jobs (``IndexUpkeep``) while the saving
/// threads write: started on first use, then parked on a condition between saves (no thread is
/// made per save). Shared by every store of the process; a save that finds it busy with another
/// store's jobs runs its own jobs itself, so it never waits for another store's work.
final class IndexUpkeepWorker: @unchecked Sendable {
    // Safe to share: `offered` and `started` are only touched with `condition` locked; the
    // upkeeps themselves are safe to share (see ``IndexUpkeep``).
    static let shared = IndexUpkeepWorker()

    /// Below this many index entries to insert, move or remove, a save takes them in itself
    /// after its write: waking the worker (a few microseconds) would cost about what it saves.
    static let overlapThreshold = 32

    private let condition = NSCondition()
    private var offered: [IndexUpkeep] = []
    private var started = false

    /// Hands `upkeep` to the worker, which runs its unclaimed jobs as soon as it gets to it.
    func offer(_ upkeep: IndexUpkeep) {
        condition.lock()
        offered.append(upkeep)
        if !started {
            started = true
            let thread = Thread { [self] in self.serve() }
            thread.name = "GraphCore index upkeep"
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
