import NIOConcurrencyHelpers

/// Hands the latest published ``ReadState`` to readers on any thread.
///
/// Only the writer publishes, after a commit is durable and before any of its saves is
/// answered; a reader takes the state once per request and works on it without a lock.
final class StatePublisher: Sendable {
    // A pthread mutex (not Synchronization.Mutex, whose futex ThreadSanitizer cannot see);
    // held only to copy the state's few references.
    private let state: NIOLockedValueBox<ReadState>

    init(_ initial: ReadState) {
        state = NIOLockedValueBox(initial)
    }

    /// The latest published state.
    var current: ReadState { state.withLockedValue { $0 } }

    /// Makes `next` the state readers take from now on.
    func publish(_ next: ReadState) {
        // The old state is released outside the lock (it may be the last reference to many nodes).
        let old = state.withLockedValue { current -> ReadState in
            let old = current
            current = next
            return old
        }
        _ = old
    }
}
