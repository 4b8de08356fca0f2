import GraphCore
import NIOConcurrencyHelpers

/// The wire form of committed objects, so that a `get` of an object read before is answered
/// without encoding it again.
///
/// Readers add the objects they encode, from whatever ``ReadState`` they work on. An entry
/// says which version of the object it is and under which ``ReadState/clearingEpoch`` it was
/// encoded; a reader uses it only when both match its own state (``lookup(_:in:)``), so no
/// reader ever answers bytes of another version than its state's, whether the entry is
/// older or newer than that state. The writer also drops the entries of what each commit
/// changed, only to free their memory.
///
/// The cache holds at most ``byteLimit`` bytes, counting each entry's wire form and
/// ``entryOverhead`` for its bookkeeping. Past that, each insert evicts what it needs by the
/// CLOCK policy (a hand sweeps the slots; an entry read since the hand last passed gets a
/// second chance), looking at no more than ``sweepLimit`` slots: the work of an insert is
/// bounded whatever the cache holds, and no request waits for the cache to be cleaned out
/// (forgetting half of 250,000 entries at once, as it used to, held the lock for about 80 ms).
final class WireObjectCache: Sendable {
    /// An object's wire form and the version it is of.
    struct Entry: Sendable {
        let version: Int64
        let bytes: [UInt8]
        /// The state's ``ReadState/clearingEpoch`` when it was encoded.
        var epoch: Int64 = 0
    }

    /// Bytes counted for each entry besides its wire form, estimated: its 40-byte slot, its
    /// key and position in a table kept at most three-quarters full (16 bytes each), and its
    /// byte array's 32-byte header with malloc's own.
    static let entryOverhead = 96
    /// The most slots one insert looks at for an entry to evict; past it the entry under the
    /// hand goes, read or not.
    static let sweepLimit = 32

    private struct Slot {
        var id: ObjectID
        var entry: Entry
        /// Read since the hand last passed.
        var referenced: Bool
    }

    private struct State {
        var positions: [ObjectID: Int] = [:]
        var slots: [Slot?] = []
        /// Empty positions in `slots`.
        var free: [Int] = []
        var hand = 0
        var bytes = 0
    }

    // A pthread mutex (not Synchronization.Mutex, whose futex ThreadSanitizer cannot see).
    private let state = NIOLockedValueBox(State())
    /// The most bytes held (0: nothing is cached).
    let byteLimit: Int

    init(byteLimit: Int = ServerConfiguration.defaultWireCacheBytes) {
        self.byteLimit = max(0, byteLimit)
    }

    /// The bytes an entry counts for.
    private static func cost(_ entry: Entry) -> Int {
        entry.bytes.count + entryOverhead
    }

    /// The entry of `snapshot`'s object when it holds exactly that version, encoded under
    /// `epoch`.
    func entry(for snapshot: ObjectSnapshot, epoch: Int64) -> Entry? {
        state.withLockedValue { state in
            Self.valid(&state, snapshot, epoch)
        }
    }

    /// The entries of all `ids` as `readState` holds them, or nil when any one is missing,
    /// not cached or cached at another version (then the caller encodes).
    func lookup(_ ids: [ObjectID], in readState: ReadState) -> [Entry]? {
        var snapshots: [ObjectSnapshot] = []
        snapshots.reserveCapacity(ids.count)
        for id in ids {
            guard let snapshot = readState.canonicalSnapshot(of: id) else { return nil }
            snapshots.append(snapshot)
        }
        let epoch = readState.clearingEpoch
        return state.withLockedValue { state in
            var found: [Entry] = []
            found.reserveCapacity(ids.count)
            for snapshot in snapshots {
                guard let entry = Self.valid(&state, snapshot, epoch) else { return nil }
                found.append(entry)
            }
            return found
        }
    }

    /// The entry of exactly `snapshot`'s object (IDs of one entity hierarchy are equal:
    /// `graph://S/Dog/7` is `graph://S/Cat/7`), version and epoch, marked as read.
    private static func valid(_ state: inout State, _ snapshot: ObjectSnapshot, _ epoch: Int64) -> Entry? {
        guard let position = state.positions[snapshot.objectID], let slot = state.slots[position],
              slot.id.entity === snapshot.objectID.entity, slot.entry.version == snapshot.version, slot.entry.epoch == epoch
        else { return nil }
        if !slot.referenced { state.slots[position]?.referenced = true }
        return slot.entry
    }

    /// The entries held for `ids`, whatever their version (for tests and diagnostics).
    func cachedEntries(_ ids: [ObjectID]) -> [Entry]? {
        state.withLockedValue { state in
            var found: [Entry] = []
            for id in ids {
                guard let position = state.positions[id], let slot = state.slots[position] else { return nil }
                found.append(slot.entry)
            }
            return found
        }
    }

    /// Holds `entry` as the wire form of `id`, in place of the one held before, evicting
    /// others when the cache is full. An entry larger than the whole cache is not held.
    func insert(_ entry: Entry, for id: ObjectID) {
        let cost = Self.cost(entry)
        state.withLockedValue { state in
            // Removed first: an equal ID of another entity of the hierarchy must not keep its key.
            Self.remove(id, from: &state)
            guard cost <= byteLimit else { return }
            while state.bytes + cost > byteLimit, Self.evictOne(from: &state) {}
            let slot = Slot(id: id, entry: entry, referenced: false)
            let position: Int
            if let reused = state.free.popLast() {
                position = reused
                state.slots[position] = slot
            } else {
                position = state.slots.count
                state.slots.append(slot)
            }
            state.positions[id] = position
            state.bytes += cost
        }
    }

    /// Evicts the first entry the hand finds unread since it last passed, or, after
    /// ``sweepLimit`` slots, the one under the hand. False when the cache is empty.
    private static func evictOne(from state: inout State) -> Bool {
        guard !state.positions.isEmpty else { return false }
        var looked = 0
        while true {
            if state.hand >= state.slots.count { state.hand = 0 }
            let position = state.hand
            state.hand += 1
            guard let slot = state.slots[position] else { continue }
            looked += 1
            if slot.referenced, looked < sweepLimit {
                state.slots[position]?.referenced = false
                continue
            }
            remove(slot.id, from: &state)
            return true
        }
    }

    /// Drops the entry of `id`, if any.
    private static func remove(_ id: ObjectID, from state: inout State) {
        guard let position = state.positions.removeValue(forKey: id), let slot = state.slots[position] else { return }
        state.slots[position] = nil
        state.free.append(position)
        state.bytes -= cost(slot.entry)
    }

    func remove(_ ids: some Sequence<ObjectID>) {
        state.withLockedValue { state in
            for id in ids { Self.remove(id, from: &state) }
        }
    }

    var count: Int { state.withLockedValue { $0.positions.count } }

    /// The bytes counted for the entries held (their wire forms and ``entryOverhead`` each).
    var byteCount: Int { state.withLockedValue { $0.bytes } }
}
