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
/// changed, only to free their memory. The cache holds at most ``byteLimit`` bytes; past
/// that it forgets half its entries.
final class WireObjectCache: Sendable {
    /// An object's wire form and the version it is of.
    struct Entry: Sendable {
        let version: Int64
        let bytes: [UInt8]
        /// The state's ``ReadState/clearingEpoch`` when it was encoded.
        var epoch: Int64 = 0
    }

    private struct State {
        var entries: [ObjectID: Entry] = [:]
        var bytes = 0
    }

    // A pthread mutex (not Synchronization.Mutex, whose futex ThreadSanitizer cannot see).
    private let state = NIOLockedValueBox(State())
    let byteLimit: Int

    init(byteLimit: Int = 64 << 20) {
        self.byteLimit = byteLimit
    }

    /// The entry of `snapshot`'s object when it holds exactly that version, encoded under
    /// `epoch`.
    func entry(for snapshot: ObjectSnapshot, epoch: Int64) -> Entry? {
        state.withLockedValue { state in
            Self.valid(state.entries, snapshot, epoch)
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
                guard let entry = Self.valid(state.entries, snapshot, epoch) else { return nil }
                found.append(entry)
            }
            return found
        }
    }

    /// The entry of exactly `snapshot`'s object (IDs of one entity hierarchy are equal:
    /// `graph://S/Dog/7` is `graph://S/Cat/7`), version and epoch.
    private static func valid(_ entries: [ObjectID: Entry], _ snapshot: ObjectSnapshot, _ epoch: Int64) -> Entry? {
        guard let index = entries.index(forKey: snapshot.objectID) else { return nil }
        let (cachedID, entry) = entries[index]
        guard cachedID.entity === snapshot.objectID.entity, entry.version == snapshot.version, entry.epoch == epoch else { return nil }
        return entry
    }

    /// The entries held for `ids`, whatever their version (for tests and diagnostics).
    func cachedEntries(_ ids: [ObjectID]) -> [Entry]? {
        state.withLockedValue { state in
            var found: [Entry] = []
            for id in ids {
                guard let entry = state.entries[id] else { return nil }
                found.append(entry)
            }
            return found
        }
    }

    func insert(_ entry: Entry, for id: ObjectID) {
        state.withLockedValue { state in
            if state.bytes + entry.bytes.count > byteLimit {
                var kept = 0
                state.entries = state.entries.filter { _ in
                    kept += 1
                    return kept % 2 == 0
                }
                state.bytes = state.entries.values.reduce(0) { $0 + $1.bytes.count }
            }
            // Removed first: an equal ID of another entity of the hierarchy must not keep its key.
            if let old = state.entries.removeValue(forKey: id) { state.bytes -= old.bytes.count }
            state.entries[id] = entry
            state.bytes += entry.bytes.count
        }
    }

    func remove(_ ids: some Sequence<ObjectID>) {
        state.withLockedValue { state in
            for id in ids {
                if let old = state.entries.removeValue(forKey: id) { state.bytes -= old.bytes.count }
            }
        }
    }

    var count: Int { state.withLockedValue { $0.entries.count } }

    /// The bytes held.
    var byteCount: Int { state.withLockedValue { $0.bytes } }
}
