import DequeModule
import GraphCore

/// The bytes a bounded cache's objects may take (``ServerConfiguration/cacheBytes``), and which
/// to let go when they take more: the writer's, the only one that changes what a state holds.
///
/// Objects leave in the order they came in (first in, first out): an object read again after it
/// left comes back at the end. A reader's hit costs nothing this way (no shared counter to
/// touch on every read); the hot objects of a workload come back as soon as they are asked for.
/// What an object takes is estimated from its values (``estimatedBytes(of:)``), measured
/// against the server's resident memory in `docs/SCALING.md`.
struct ObjectBudget {
    /// The bytes the objects may take.
    let limit: Int
    /// The estimate of the objects the state holds now.
    private(set) var bytes = 0
    /// What each object held takes.
    private var sizes: [ObjectID: Int] = [:]
    /// The objects in the order they came in (an object may appear more than once: the entries
    /// before its last one are skipped).
    private var order: Deque<(id: ObjectID, turn: Int)> = []
    /// Each held object's latest entry in ``order``.
    private var turns: [ObjectID: Int] = [:]
    private var nextTurn = 0

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// How many objects are held.
    var count: Int { sizes.count }

    /// Notes that the state now holds `snapshot` (new, or at a new version).
    mutating func hold(_ snapshot: ObjectSnapshot) {
        let id = snapshot.objectID
        let size = Self.estimatedBytes(of: snapshot)
        bytes += size - (sizes[id] ?? 0)
        sizes[id] = size
        if turns[id] == nil {
            turns[id] = nextTurn
            order.append((id, nextTurn))
            nextTurn &+= 1
        }
    }

    /// Notes that the state no longer holds object `id` (deleted).
    mutating func release(_ id: ObjectID) {
        guard let size = sizes.removeValue(forKey: id) else { return }
        bytes -= size
        turns[id] = nil
    }

    /// The objects to let go so that the rest fit in the limit, oldest first (and forgotten here).
    mutating func overflow() -> [ObjectID] {
        var leaving: [ObjectID] = []
        while bytes > limit, let (id, turn) = order.popFirst() {
            guard turns[id] == turn else { continue }  // deleted, or held again since
            leaving.append(id)
            release(id)
        }
        if order.count > 2 * max(sizes.count, 1024) { compact() }
        return leaving
    }

    /// Drops the entries of objects no longer held from ``order``.
    private mutating func compact() {
        order = Deque(order.filter { turns[$0.id] == $0.turn })
    }

    /// What holding `snapshot` costs in memory, roughly: the state's entry and the snapshot
    /// (about 160 bytes), each value's slot, and what a value keeps on the heap.
    static func estimatedBytes(of snapshot: ObjectSnapshot) -> Int {
        var total = 160 + 24 * snapshot.values.count
        for value in snapshot.values {
            switch value {
            case .string(let text):
                let count = text.utf8.count
                if count > 15 { total += 32 + count }
            case .binary(let data): total += 32 + data.count
            case .objects(let ids): total += 32 + 40 * ids.count
            case .decimal, .uri: total += 48
            default: break
            }
        }
        return total
    }
}
