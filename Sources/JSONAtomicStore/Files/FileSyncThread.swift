import Foundation
import GraphCore
#if canImport(Glibc)
import Glibc
#endif

/// One long-lived thread that waits for a journal's `fdatasync` while the saving thread does
/// other work of the same save (takes it into the store's fetch indexes): the save then costs
/// the longer of the two, not their sum. The saving thread keeps its caches (the new nodes,
/// the hot part of the index trees); this thread only sleeps in the system call.
///
/// Started when a store that may use it opens (``prepare()``), so that it runs at the opening
/// thread's priority rather than at that of the thread that saves first (a server's writer
/// lowers its own: a sync thread at that priority would wait for a core on a busy machine);
/// then parked on a condition between syncs (`json file sync` in `top -H`). One sync at a
/// time: a save that finds it busy (another store's save) syncs on its own thread, as without it.
final class FileSyncThread: @unchecked Sendable {
    // Safe to share: every property is only touched with `condition` locked.
    static let shared = FileSyncThread()

    /// A sync started on the thread, to be waited for once, by the thread that started it: the
    /// thread starts no other sync until it is.
    struct Ticket {
        fileprivate let owner: FileSyncThread
        fileprivate let number: UInt64

        /// Waits for the sync to end: 0 when it succeeded, else its `errno`.
        func wait() -> Int32 { owner.wait(for: number) }
    }

    private let condition = NSCondition()
    private var started = false
    /// The descriptor of the sync to run, set by `start` and taken by the thread.
    private var pending: Int32?
    /// Whether a sync was started and not yet waited for.
    private var busy = false
    /// The number of the last sync started, and the result of the last one finished.
    private var startedNumber: UInt64 = 0
    private var finished: (number: UInt64, errno: Int32)?

    /// How many syncs the thread has run (for tests).
    var syncCount: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return finished?.number ?? 0
    }

    /// Starts the thread unless it runs already.
    func prepare() {
        condition.lock()
        defer { condition.unlock() }
        startThread()
    }

    /// Starts `fdatasync(descriptor)` on the thread; nil when the thread is busy with another
    /// sync. The descriptor must stay open until the ticket is waited for.
    func start(_ descriptor: Int32) -> Ticket? {
        condition.lock()
        defer { condition.unlock() }
        guard !busy else { return nil }
        busy = true
        startedNumber &+= 1
        pending = descriptor
        startThread()
        condition.broadcast()
        return Ticket(owner: self, number: startedNumber)
    }

    /// Starts the thread once; `condition` must be locked.
    private func startThread() {
        guard !started else { return }
        started = true
        let thread = Thread { [self] in
            ThreadName.set("json file sync")
            self.serve()
        }
        thread.start()
    }

    private func wait(for number: UInt64) -> Int32 {
        condition.lock()
        defer { condition.unlock() }
        while (finished?.number ?? 0) < number { condition.wait() }
        if number == startedNumber { busy = false }
        return finished?.number == number ? finished?.errno ?? 0 : 0
    }

    private func serve() {
        while true {
            condition.lock()
            while pending == nil { condition.wait() }
            let descriptor = pending ?? -1
            let number = startedNumber
            pending = nil
            condition.unlock()
            let result = fdatasync(descriptor) == 0 ? 0 : errno
            condition.lock()
            finished = (number, result)
            condition.broadcast()
            condition.unlock()
        }
    }
}
