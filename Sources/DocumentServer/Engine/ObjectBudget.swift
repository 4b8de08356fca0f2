import DequeModule
import GraphCore

/// The bytes a bounded cache's objects may take (``ServerConfiguration/cacheBytes``), and which
/// to let go when they take more: the writer's, the only one that changes what a state holds.
///
/// Objects leave in the order they came in, with a second chance (the CLOCK policy): an object
/// asked for since it came in (``reference(_:)``, the readers' hits handed over in batches by
/// ``CacheHits``) goes to the end of the line once instead of leaving. The hot objects of a
/// workload stay; those read once leave first. (Plain first in, first out let the hot set cycle
/// out: 74 % hits where this gives 88 %, simulated on 2,000,000 objects, 90 % of reads on 10 %
/// of them, room for 240,000; `docs/SCALING.md`.) An object read again after it left comes back
/// at the end.
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
    /// Each held object's latest entry in ``order``, and whether it was asked for since.
    private var turns: [ObjectID: Turn] = [:]
    private var nextTurn = 0

    /// A held object's latest entry in ``order``; `referenced`: asked for since it was made.
    /// One table for both: a hit noted costs one lookup of the ID, where a table of entries and
    /// a set of the objects asked for cost two (the writer's noting of hits was 2.7 % of the
    /// server's samples under hot `get`s, `docs/SCALING.md`).
    private struct Turn {
        var number: Int
        var referenced = false
    }

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
            turns[id] = Turn(number: nextTurn)
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

    /// Notes that a reader found object `id` in the cache: when its turn to leave comes, it
    /// goes to the end of the line instead, once. Nothing for an object not held.
    mutating func reference(_ id: ObjectID) {
        turns[id]?.referenced = true
    }

    /// The objects to let go so that the rest fit in the limit, oldest first (and forgotten here).
    mutating func overflow() -> [ObjectID] {
        var leaving: [ObjectID] = []
        while bytes > limit, let (id, turn) = order.popFirst() {
            guard let current = turns[id], current.number == turn else { continue }  // deleted, or held again since
            if current.referenced {
                // Asked for since it came in: a second turn (each object has one at most per
                // pass, so the loop ends).
                turns[id] = Turn(number: nextTurn)
                order.append((id, nextTurn))
                nextTurn &+= 1
                continue
            }
            leaving.append(id)
            release(id)
        }
        if order.count > 2 * max(sizes.count, 1024) { compact() }
        return leaving
    }

    /// Drops the entries of objects no longer held from ``order``.
    private mutating func compact() {
        order = Deque(order.filter { turns[$0.id]?.number == $0.turn })
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
