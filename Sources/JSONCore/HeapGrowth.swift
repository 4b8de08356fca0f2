import CYajl
import Foundation

/// While a large file's objects are made, glibc's heaps grow in large steps: the main heap,
/// and each heap made for a thread meanwhile, is otherwise made larger (one `brk` or
/// `mprotect` call) every 128 KiB or so of new objects. What is mapped but not yet used costs
/// no memory.
///
/// The setting (`M_TOP_PAD`) is the process's: it is set back to glibc's default after,
/// and left alone when the environment sets it (`MALLOC_TOP_PAD_`).
package struct HeapGrowth {
    private let changed: Bool

    /// glibc's default step (mallopt(3)).
    static let defaultStep: Int32 = 128 << 10
    /// The step while a large file is read.
    static let largeStep: Int32 = 32 << 20

    /// Heaps that grow in steps of 32 MiB, until ``restore()``.
    package static func large() -> HeapGrowth {
        guard ProcessInfo.processInfo.environment["MALLOC_TOP_PAD_"] == nil else { return HeapGrowth(changed: false) }
        return HeapGrowth(changed: cyajl_set_heap_top_pad(largeStep) == 1)
    }

    /// Sets the step back to glibc's default.
    package func restore() {
        if changed { _ = cyajl_set_heap_top_pad(Self.defaultStep) }
    }
}
