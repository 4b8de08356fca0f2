import Foundation

/// A value guarded by a lock, for state that threads share.
///
/// It uses `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux
/// ThreadSanitizer sees a pthread mutex's ordering but not `Mutex`'s, so with `Mutex` every
/// access made under the lock is reported as a data race and real races drown in them.
final class Locked<State>: @unchecked Sendable {
    // Safe to share: `state` is only touched inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
