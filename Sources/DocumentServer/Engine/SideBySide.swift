import Dispatch
import Foundation

/// Two independent pieces of work run at the same time: the second on a thread of its own,
/// the first on the calling thread. What the first state of a server builds from the store's
/// objects.
///
/// A plain thread, not `DispatchQueue.concurrentPerform`: work that itself spreads over the
/// cores with `concurrentPerform` (the indexes, `IndexBuildJobs`) would run one piece after
/// the other inside it, since Dispatch gives a nested `concurrentPerform` only the width the
/// outer one leaves.
enum SideBySide {
    /// `first()` and `second()` run concurrently; returns both results once both are done.
    static func run<A, B: Sendable>(_ first: () -> A, _ second: @escaping @Sendable () -> B) -> (A, B) {
        let slot = Slot<B>()
        Thread.detachNewThread { slot.finish(second()) }
        let a = first()
        // Never nil: the thread sets the result before it signals. Were it nil, the work is
        // done again here rather than trusted.
        return (a, slot.wait() ?? second())
    }
}

/// The result of the second piece of work of ``SideBySide/run(_:_:)``, handed from its
/// thread to the caller.
private final class Slot<B: Sendable>: @unchecked Sendable {
    // Sendable: `result` is written once, by the thread, before it signals `done`, and read
    // by the caller only after it waited for `done`.
    private var result: B?
    private let done = DispatchSemaphore(value: 0)

    func finish(_ value: B) {
        result = value
        done.signal()
    }

    /// The result, once the thread gave it.
    func wait() -> B? {
        done.wait()
        return result
    }
}
