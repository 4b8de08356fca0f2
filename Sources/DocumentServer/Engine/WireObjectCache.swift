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
/// CLOCK policy (a hand sweeps a ring of the entries; one read since the hand last passed gets
/// a second chance), looking at no more than ``sweepLimit`` entries (and the places left empty
/// between them by removals, which inserts fill again): the work of an insert is
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

    /// Bytes counted for each entry besides its wire form, estimated: its key and its place in
    /// the ring (12 bytes) in a table kept between three-eighths and three-quarters full, its
    /// place in the ring (its ID, its entry and whether it was read: 33), and its byte array's
    /// 32-byte header with malloc's rounding up to a size class.
    static let entryOverhead = 96
    /// The most entries one insert looks at for one to evict; past it the entry under the
    /// hand goes, read or not.
    static let sweepLimit = 32

    private struct State {
        /// What a lookup reads first: one hash probe, the entry's place in the ring. A table of
        /// small values (4 bytes beside each 8-byte key), where the entries themselves, 24 bytes,
        /// would be held in every bucket of a table kept at most three-quarters full.
        var held: [ObjectID: UInt32] = [:]
        /// The IDs in the order the hand sweeps them; nil where an entry was removed.
        var ring: [ObjectID?] = []
        /// By position in `ring`: the entries (an empty one where none is held).
        var entries: [Entry] = []
        /// By position in `ring`: read since the hand last passed. Apart from the ring, so
        /// that the sweep walks one small array instead of probing the table for each entry.
        var referenced: [Bool] = []
        /// Empty positions in `ring`.
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
        guard let index = state.held.index(forKey: snapshot.objectID) else { return nil }
        let (id, place) = state.held[index]
        let position = Int(place)
        let entry = state.entries[position]
        guard id.entity === snapshot.objectID.entity, entry.version == snapshot.version, entry.epoch == epoch else { return nil }
        state.referenced[position] = true
        return entry
    }

    /// The entries held for `ids`, whatever their version (for tests and diagnostics).
    func cachedEntries(_ ids: [ObjectID]) -> [Entry]? {
        state.withLockedValue { state in
            var found: [Entry] = []
            for id in ids {
                guard let place = state.held[id] else { return nil }
                found.append(state.entries[Int(place)])
            }
            return found
        }
    }

    /// Holds `entry` as the wire form of `id`, in place of the one held before, evicting
    /// others when the cache is full. An entry larger than the whole cache is not held.
    func insert(_ entry: Entry, for id: ObjectID) {
        state.withLockedValue { state in
            Self.insert(entry, for: id, into: &state, byteLimit: byteLimit)
        }
    }

    /// ``insert(_:for:)`` unless the entry held for `id`, of the same entity, is of a later
    /// version: for a writer that may lag behind the commits (the change feed encodes a
    /// commit's objects after the writer went on), so that it never puts an older form in the
    /// place of a newer one a reader encoded.
    func insertUnlessNewer(_ entry: Entry, for id: ObjectID) {
        state.withLockedValue { state in
            if let index = state.held.index(forKey: id) {
                let (heldID, place) = state.held[index]
                if heldID.entity === id.entity, state.entries[Int(place)].version > entry.version { return }
            }
            Self.insert(entry, for: id, into: &state, byteLimit: byteLimit)
        }
    }

    private static func insert(_ entry: Entry, for id: ObjectID, into state: inout State, byteLimit: Int) {
        let cost = Self.cost(entry)
        // Removed first: an equal ID of another entity of the hierarchy must not keep its key.
        remove(id, from: &state)
        guard cost <= byteLimit else { return }
        while state.bytes + cost > byteLimit, evictOne(from: &state) {}
        let position: Int
        if let reused = state.free.popLast() {
            position = reused
            state.ring[position] = id
            state.entries[position] = entry
            state.referenced[position] = false
        } else {
            // Places are numbered in 32 bits: past that many entries, no more are held.
            guard state.ring.count < Int(UInt32.max) else { return }
            position = state.ring.count
            state.ring.append(id)
            state.entries.append(entry)
            state.referenced.append(false)
        }
        state.held[id] = UInt32(truncatingIfNeeded: position)
        state.bytes += cost
    }

    /// Evicts the first entry the hand finds unread since it last passed, or, after
    /// ``sweepLimit`` entries, the one under the hand. False when the cache is empty.
    private static func evictOne(from state: inout State) -> Bool {
        guard !state.held.isEmpty else { return false }
        var looked = 0
        // Every entry has its place in the ring: two turns always find one.
        for _ in 0..<(2 * state.ring.count) {
            if state.hand >= state.ring.count { state.hand = 0 }
            let position = state.hand
            state.hand += 1
            guard let id = state.ring[position] else { continue }
            looked += 1
            if state.referenced[position], looked < sweepLimit {
                state.referenced[position] = false
                continue
            }
            remove(id, from: &state)
            return true
        }
        return false
    }

    /// Drops the entry of `id`, if any.
    private static func remove(_ id: ObjectID, from state: inout State) {
        guard let place = state.held.removeValue(forKey: id) else { return }
        let position = Int(place)
        state.bytes -= cost(state.entries[position])
        state.ring[position] = nil
        state.entries[position] = Entry(version: 0, bytes: [])
        state.free.append(position)
    }

    func remove(_ ids: some Sequence<ObjectID>) {
        state.withLockedValue { state in
            for id in ids { Self.remove(id, from: &state) }
        }
    }

    var count: Int { state.withLockedValue { $0.held.count } }

    /// The bytes counted for the entries held (their wire forms and ``entryOverhead`` each).
    var byteCount: Int { state.withLockedValue { $0.bytes } }
}
