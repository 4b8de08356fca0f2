import GraphCore
import NIOConcurrencyHelpers

/// The wire form of committed objects, so that `get` can be answered on the connection's
/// own thread instead of waiting for the store thread.
///
/// Only the store thread adds and removes entries: it adds the objects it encodes for a
/// `get`, and after each commit it removes every object the commit changed, before any
/// save of that commit is answered. So an entry is always the object's committed state.
/// The cache holds at most ``byteLimit`` bytes; past that it forgets half its entries.
final class WireObjectCache: Sendable {
    /// An object's wire form and the version it is of.
    struct Entry: Sendable {
        let version: Int64
        let bytes: [UInt8]
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

    /// The entries of all `ids`, or nil when any one is not cached.
    ///
    /// IDs of one entity hierarchy are equal (`graph://S/Dog/7` is `graph://S/Cat/7`): an
    /// entry found under an ID of an entity that is not the object's own or an ancestor of
    /// it does not count, so that the store thread answers it (missing).
    func lookup(_ ids: [ObjectID]) -> [Entry]? {
        state.withLockedValue { state in
            var found: [Entry] = []
            found.reserveCapacity(ids.count)
            for id in ids {
                guard let index = state.entries.index(forKey: id) else { return nil }
                let (cachedID, entry) = state.entries[index]
                guard cachedID.entity.isKind(of: id.entity) else { return nil }
                found.append(entry)
            }
            return found
        }
    }

    func insert(_ bytes: [UInt8], version: Int64, for id: ObjectID) {
        state.withLockedValue { state in
            if state.bytes + bytes.count > byteLimit {
                var kept = 0
                state.entries = state.entries.filter { _ in
                    kept += 1
                    return kept % 2 == 0
                }
                state.bytes = state.entries.values.reduce(0) { $0 + $1.bytes.count }
            }
            if let old = state.entries.updateValue(Entry(version: version, bytes: bytes), forKey: id) { state.bytes -= old.bytes.count }
            state.bytes += bytes.count
        }
    }

    func remove(_ ids: some Sequence<ObjectID>) {
        state.withLockedValue { state in
            for id in ids {
                if let old = state.entries.removeValue(forKey: id) { state.bytes -= old.bytes.count }
            }
        }
    }

    /// Forgets the entries of every object `shouldRemove` picks.
    func removeAll(where shouldRemove: (ObjectID) -> Bool) {
        state.withLockedValue { state in
            for id in state.entries.keys where shouldRemove(id) {
                if let old = state.entries.removeValue(forKey: id) { state.bytes -= old.bytes.count }
            }
        }
    }

    var count: Int { state.withLockedValue { $0.entries.count } }

    /// The bytes held.
    var byteCount: Int { state.withLockedValue { $0.bytes } }
}
