import GraphCore

/// The IDs a ``RemoteStore`` handed out whose values it has not loaded: fetched as faults,
/// or named by relationships of loaded objects. When one fault fires, the IDs after it
/// load in the same `get`, in the order they were met, so walking the results of a fetch
/// costs one round trip per batch instead of one per object.
///
/// At most ``capacity`` IDs are queued; past that the oldest half is forgotten (a forgotten
/// fault still loads when it fires, only not ahead of time).
struct FaultQueue {
    let capacity: Int
    private var ids: [ObjectID] = []
    private var positions: [ObjectID: Int] = [:]
    /// Entries before this index were all taken (compacted away now and then).
    private var start = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { positions.count }

    mutating func append(_ id: ObjectID) {
        guard positions[id] == nil else { return }
        positions[id] = ids.count
        ids.append(id)
        if positions.count > capacity { forgetOldestHalf() }
    }

    private mutating func forgetOldestHalf() {
        keep { $0.dropFirst($0.count / 2) }
    }

    /// Rebuilds the queue from the IDs still queued, in order, keeping those `choose` returns.
    private mutating func keep(_ choose: ([ObjectID]) -> ArraySlice<ObjectID>) {
        let live = ids.indices[start...].filter { positions[ids[$0]] == $0 }.map { ids[$0] }
        ids = Array(choose(live))
        start = 0
        positions = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
    }

    mutating func remove(_ id: ObjectID) {
        positions[id] = nil
    }

    /// Up to `limit` queued IDs that pass `include`: those after `id` first (the order a walk
    /// goes in), then from the front. The IDs returned leave the queue.
    mutating func take(after id: ObjectID, limit: Int, where include: (ObjectID) -> Bool) -> [ObjectID] {
        guard limit > 0, !positions.isEmpty else { return [] }
        var taken: [ObjectID] = []
        let from = positions[id].map { $0 + 1 } ?? ids.count
        func scan(_ range: Range<Int>) {
            for index in range where taken.count < limit {
                let candidate = ids[index]
                guard positions[candidate] == index, candidate != id, include(candidate) else { continue }
                taken.append(candidate)
                positions[candidate] = nil
            }
        }
        scan(from..<ids.count)
        if taken.count < limit { scan(start..<min(from, ids.count)) }
        compact()
        return taken
    }

    /// Drops the taken entries once they are most of the array.
    private mutating func compact() {
        while start < ids.count, positions[ids[start]] != start { start += 1 }
        guard start > 1024, start * 2 > ids.count else { return }
        keep { $0[...] }
    }
}
