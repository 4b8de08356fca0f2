import GraphCore

/// Which objects read after a miss a full bounded cache keeps: only those that missed once
/// before, lately (the "ghost" list of 2Q and ARC, which remembers the IDs of objects it does not
/// hold). While the cache has room, it keeps everything. The writer's, like ``ObjectBudget``.
///
/// Without it every object a `get` missed came into the state and pushed another out: a new
/// state published, two paths of the state's hash tree copied and, later, freed, for an object
/// that, read at random among millions, is seldom read again before it leaves in turn, while it
/// took the place of one that might have been. Under uniform reads of 2,000,000 Songs through a
/// 64 MiB cache a fifth of the server's CPU went to that churn (`docs/SCALING.md`). An object
/// asked for twice within the last ``capacity`` misses is kept: a hot object the cache does not
/// hold yet comes in at its second miss.
///
/// The IDs are remembered by their 64-bit hash (a collision only keeps an object that missed
/// once), in a set and a ring of ``capacity`` entries, oldest out first: about 20 bytes each.
struct AdmissionFilter {
    /// How many misses are remembered.
    let capacity: Int
    private var remembered: Set<UInt64> = []
    private var ring: [UInt64] = []
    private var next = 0

    /// A filter for a cache of `budgetBytes` (one entry per 512 bytes of it, at least 1,024:
    /// about 4 % of the budget).
    init(budgetBytes: Int) {
        capacity = max(1024, budgetBytes / 512)
        remembered.reserveCapacity(capacity)
        ring.reserveCapacity(capacity)
    }

    /// Notes a miss of object `id` and says whether it missed before, among the last
    /// ``capacity`` misses remembered (then a full cache keeps it).
    mutating func missedBefore(_ id: ObjectID) -> Bool {
        let key = UInt64(truncatingIfNeeded: id.hashValue)
        guard remembered.insert(key).inserted else { return true }
        if ring.count < capacity {
            ring.append(key)
        } else {
            remembered.remove(ring[next])
            ring[next] = key
            next = next + 1 == capacity ? 0 : next + 1
        }
        return false
    }
}
