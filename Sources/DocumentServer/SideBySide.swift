import Dispatch

/// Two independent pieces of work run at the same time, on two threads (the calling thread
/// may take one): what the first state of a server builds from the store's objects.
enum SideBySide {
    /// `first()` and `second()` run concurrently; returns both results once both are done.
    static func run<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
        let a = UnsafeMutablePointer<A>.allocate(capacity: 1)
        let b = UnsafeMutablePointer<B>.allocate(capacity: 1)
        defer {
            a.deallocate()
            b.deallocate()
        }
        withoutActuallyEscaping(first) { first in
            withoutActuallyEscaping(second) { second in
                let slots = Slots(first: first, second: second, a: a, b: b)
                DispatchQueue.concurrentPerform(iterations: 2) { which in
                    if which == 0 { slots.a.initialize(to: slots.first()) } else { slots.b.initialize(to: slots.second()) }
                }
            }
        }
        // `concurrentPerform` returns after both iterations: both results are initialized.
        return (a.move(), b.move())
    }
}

/// The work and where its results go, shared by the two threads of ``SideBySide/run(_:_:)``.
private struct Slots<A, B>: @unchecked Sendable {
    // Sendable: one thread initializes `a` only, the other `b` only, and both are read after
    // `concurrentPerform` returned; the closures are only called, each on one thread.
    let first: () -> A
    let second: () -> B
    let a: UnsafeMutablePointer<A>
    let b: UnsafeMutablePointer<B>
}
