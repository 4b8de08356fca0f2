import Foundation

/// The coordinator's own state behind one lock, and its stores lent out one caller at a time.
///
/// The lock is held only to read or change the state and to take or give back stores, never
/// while a store works: a caller picks the stores it needs from the state, waits until none of
/// them is in use, marks them in use all at once, releases the lock, calls them, and gives them
/// back. So a slow store (a remote one waiting for its server) stalls only the callers that
/// need that store; a caller never holds one store while it waits for another, so callers
/// needing several stores cannot deadlock, nor hold up the callers of the store they already
/// have. Each store still sees one call at a time, as ``PersistentStore`` promises.
///
/// It uses `NSCondition` (a pthread mutex and condition variable) for the reason ``Locked``
/// gives: ThreadSanitizer on Linux sees their ordering.
final class StoreAccess<State>: @unchecked Sendable {
    // Safe to share: `state` and `inUse` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var state: State
    /// The stores a caller is working with.
    private var inUse: Set<ObjectIdentifier> = []

    init(_ state: State) {
        self.state = state
    }

    /// Reads or changes the state (no store is called here).
    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        condition.lock()
        defer { condition.unlock() }
        return try body(&state)
    }

    /// Runs `body` with the stores `plan` names to itself.
    ///
    /// `plan` picks the stores (and whatever else `body` needs, such as a save split by store)
    /// from the state; it runs again each time the caller had to wait, so a store removed
    /// meanwhile is never handed out. `body` runs without the lock.
    func withStores<Plan, R>(
        _ plan: (State) throws -> (stores: [PersistentStore], plan: Plan),
        _ body: (Plan) throws -> R
    ) rethrows -> R {
        condition.lock()
        let chosen: (stores: [PersistentStore], plan: Plan)
        do {
            var candidate = try plan(state)
            while candidate.stores.contains(where: { inUse.contains(ObjectIdentifier($0)) }) {
                condition.wait()
                candidate = try plan(state)
            }
            chosen = candidate
        } catch {
            condition.unlock()
            throw error
        }
        let keys = Set(chosen.stores.map(ObjectIdentifier.init))
        inUse.formUnion(keys)
        condition.unlock()
        defer {
            condition.lock()
            inUse.subtract(keys)
            condition.broadcast()
            condition.unlock()
        }
        return try body(chosen.plan)
    }

    /// Waits until no caller uses `store`, then changes the state with the lock held (to take
    /// the store out, so that no caller gets it again).
    func whenIdle<R>(_ store: PersistentStore, _ body: (inout State) throws -> R) rethrows -> R {
        condition.lock()
        defer { condition.unlock() }
        while inUse.contains(ObjectIdentifier(store)) { condition.wait() }
        return try body(&state)
    }
}
