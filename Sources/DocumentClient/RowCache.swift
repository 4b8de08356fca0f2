import GraphCore

/// What a ``RemoteStore`` last read or saved of each object: its values at a version.
///
/// A row lets a refresh of an object that did not change skip the values (`get` with the
/// row's version). A row loaded ahead, with a batch of faults, is *prefetched*: the first
/// time its object's fault fires within ``prefetchLifetime``, it is the answer, with no
/// round trip. After that the row is only a hint of what the server has.
///
/// At most ``capacity`` rows are kept; past that the oldest half is forgotten (a forgotten
/// row costs one full `get`, nothing more).
struct RowCache {
    private var rows: [ObjectID: ObjectSnapshot] = [:]
    private var order: [ObjectID] = []
    private var prefetched: [ObjectID: ContinuousClock.Instant] = [:]
    let capacity: Int
    let prefetchLifetime: Duration

    init(capacity: Int, prefetchLifetime: Duration) {
        self.capacity = max(1, capacity)
        self.prefetchLifetime = prefetchLifetime
    }

    var count: Int { rows.count }

    subscript(id: ObjectID) -> ObjectSnapshot? { rows[id] }

    mutating func store(_ snapshot: ObjectSnapshot) {
        if rows.updateValue(snapshot, forKey: snapshot.objectID) == nil {
            order.append(snapshot.objectID)
            if order.count > capacity { evictOldestHalf() }
        }
    }

    mutating func remove(_ id: ObjectID) {
        rows[id] = nil
        prefetched[id] = nil
    }

    /// Forgets every row.
    mutating func removeAll() {
        rows = [:]
        order = []
        prefetched = [:]
    }

    /// Marks rows loaded ahead of their faults.
    mutating func markPrefetched(_ ids: some Sequence<ObjectID>, at now: ContinuousClock.Instant) {
        for id in ids where rows[id] != nil { prefetched[id] = now }
    }

    /// The row of a fault that fires now, if it was loaded ahead recently enough; used once.
    mutating func takePrefetched(_ id: ObjectID, at now: ContinuousClock.Instant) -> ObjectSnapshot? {
        guard let loaded = prefetched.removeValue(forKey: id) else { return nil }
        guard now - loaded <= prefetchLifetime else { return nil }
        return rows[id]
    }

    /// The row no longer answers its fault without a round trip (its object was refreshed).
    mutating func forgetPrefetch(_ id: ObjectID) {
        prefetched[id] = nil
    }

    /// Whether a row is waiting, fresh, for its fault.
    func isPrefetched(_ id: ObjectID, at now: ContinuousClock.Instant) -> Bool {
        guard let loaded = prefetched[id] else { return false }
        return now - loaded <= prefetchLifetime
    }

    private mutating func evictOldestHalf() {
        // `order` may name rows removed since, and a row stored again twice: keep each row's
        // latest place, and the newer half of those.
        var seen = Set<ObjectID>()
        let live = Array(order.reversed().filter { rows[$0] != nil && seen.insert($0).inserted }.reversed())
        let dropped = live.prefix(live.count / 2)
        for id in dropped { remove(id) }
        order = Array(live.dropFirst(dropped.count))
    }
}
