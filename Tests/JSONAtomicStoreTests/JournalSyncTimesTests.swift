import Foundation
@testable import JSONAtomicStore
import Synchronization
import Testing

/// The observer of the journal's sync times is called as it was set, however many syncs there
/// have been: reading it must not wrap it again (a function value read out of a generic lock
/// through `inout` was written back wrapped in two more reabstraction thunks on every sync, so
/// each call went through a chain as long as the syncs before it, until the writer's stack ran out).
@Suite(.serialized)
struct JournalSyncTimesTests {
    @Test func theObserverIsCalledThroughTheSameFramesOnTheThousandthSyncAsOnTheFirst() {
        let depths = Mutex<[Int]>([])
        // Only this thread's syncs: tests running beside this one sync their journals too, and
        // the observer is the process's.
        let mine = pthread_self()
        JournalSyncTimes.observe { _ in
            guard pthread_equal(pthread_self(), mine) != 0 else { return }
            let depth = Thread.callStackReturnAddresses.count
            depths.withLock { $0.append(depth) }
        }
        defer { JournalSyncTimes.observe { _ in } }
        for _ in 0..<1_000 { JournalSyncTimes.record(since: .now) }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 1_000)
        #expect(seen.first == seen.last, "frames at the observer: \(seen.first ?? 0) on the first sync, \(seen.last ?? 0) on the last")
    }
}
