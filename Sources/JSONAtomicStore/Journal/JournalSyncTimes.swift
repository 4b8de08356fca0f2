import Foundation
import Synchronization

/// How long the journal's `fdatasync`s take, told to whoever watches (the server's metrics):
/// the one number that says whether the disk keeps up with the saves. Process-wide, as the
/// disk is: every store's journal reports here. Watching costs nothing when nobody watches
/// but a clock read per sync, and a sync takes milliseconds.
public enum JournalSyncTimes {
    /// The observer, in a struct: a function value kept directly in the generic `Mutex` was
    /// reabstracted on every `withLock` through its `inout` and written back wrapped in two more
    /// thunks, so that each sync called through a chain as long as the syncs before it.
    private struct Observer: Sendable {
        let body: @Sendable (_ nanoseconds: Int64) -> Void
    }

    private static let observer = Mutex<Observer?>(nil)

    /// Has `body` told the duration of each journal sync from now on, in nanoseconds (on the
    /// saving thread, right after the sync); replaces the observer set before.
    public static func observe(_ body: @escaping @Sendable (_ nanoseconds: Int64) -> Void) {
        observer.withLock { $0 = Observer(body: body) }
    }

    /// Reports a sync begun at `start`.
    static func record(since start: ContinuousClock.Instant) {
        guard let body = observer.withLock({ $0?.body }) else { return }
        let elapsed = (ContinuousClock.now - start).components
        body(elapsed.seconds &* 1_000_000_000 &+ elapsed.attoseconds / 1_000_000_000)
    }
}
