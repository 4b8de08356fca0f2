import Foundation
import Testing
@testable import JSONAtomicStore
#if canImport(Glibc)
import Glibc
#endif

/// A released store lock is free at once, even while a copy of its descriptor lives on: the
/// copy a child process holds between `fork` and `exec` when another thread starts a program.
@Suite struct StoreLockReleaseTests {
    @Test("a lock released while a copy of its descriptor is open can be taken again at once")
    func releasedLockIsFreeDespiteACopyOfItsDescriptor() throws {
        let directory = try TemporaryDirectory()
        let storePath = directory.file("store.json").path
        let lock = try StoreFileLock.acquire(storePath: storePath)
        let original = try #require(Self.openDescriptor(of: storePath + ".lock"), "the lock file is not open")
        // What a forked child holds until it execs (close-on-exec closes it only then).
        let copy = dup(original)
        #expect(copy >= 0)
        defer { close(copy) }

        lock.release()
        // Before the fix: storeInUse, naming this very process, until the copy was closed.
        let again = try StoreFileLock.acquire(storePath: storePath)
        again.release()
    }

    /// The descriptor of this process open on `path`, found through `/proc/self/fd`.
    static func openDescriptor(of path: String) -> Int32? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
        for entry in entries {
            guard let descriptor = Int32(entry),
                  let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)")
            else { continue }
            if target == path { return descriptor }
        }
        return nil
    }
}
