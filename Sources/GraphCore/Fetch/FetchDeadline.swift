/// Watches a fetch's ``FetchRequest/deadline`` while the fetch works: the loops that scan
/// objects, walk collections or match long strings call it, and past the deadline it throws
/// ``GraphError/timeLimitExceeded(entity:)``, so a fetch ends with an error rather than a
/// partial or wrong answer.
///
/// The clock is read every ``interval`` calls of ``check()``, so the check costs a counter
/// decrement in a tight loop. Not `Sendable`: one fetch, one thread.
final class FetchDeadline {
    /// How many ``check()`` calls go between two readings of the clock.
    static let interval = 64

    let instant: ContinuousClock.Instant
    /// The entity of the request, for the error.
    let entity: String
    private var countdown = 1
    /// Whether the deadline was found passed (by ``check()`` or ``hasPassed()``).
    private(set) var passed = false

    init(_ instant: ContinuousClock.Instant, entity: String) {
        self.instant = instant
        self.entity = entity
    }

    /// A watcher for `request`, or nil when it has no deadline.
    convenience init?(_ request: FetchRequest) {
        guard let deadline = request.deadline else { return nil }
        self.init(deadline, entity: request.entityName)
    }

    /// Throws once the deadline has passed (the clock is read every ``interval`` calls).
    @inline(__always)
    func check() throws(GraphError) {
        countdown -= 1
        if countdown > 0 && !passed { return }
        countdown = Self.interval
        if hasPassed() { throw error }
    }

    /// Throws if the deadline has passed, reading the clock now.
    func checkNow() throws(GraphError) {
        if hasPassed() { throw error }
    }

    /// Whether the deadline has passed, reading the clock; remembered for ``check()``.
    func hasPassed() -> Bool {
        if !passed && ContinuousClock.now >= instant { passed = true }
        return passed
    }

    var error: GraphError { .timeLimitExceeded(entity: entity) }
}
