import Foundation
import Synchronization

/// The changes other processes made to a coordinator's stores, as its stores reported them,
/// kept for the contexts that have not merged them yet.
///
/// Each entry has a number (1, 2, …); a context remembers the last number it merged. Only
/// the newest ``capacity`` entries are kept: a context that fell further behind is told it
/// missed some, and refreshes every object it holds without unsaved changes instead.
final class RemoteChangeLog: Sendable {
    /// An entry: what another process changed, or word that changes were missed.
    enum Entry: Sendable {
        case change(ContextDidSave)
        case missed
    }

    /// What a context merges: the entries after its cursor, or `missed` when some of them
    /// are no longer kept.
    struct Pending {
        var entries: [Entry]
        var cursor: Int
    }

    /// How many entries are kept.
    static let capacity = 1024

    /// The number of the newest entry (0 before the first): a context compares it with its
    /// cursor without taking the lock.
    let newest = Atomic<Int>(0)
    private let entries = Locked<[(number: Int, entry: Entry)]>([])

    func append(_ entry: Entry) {
        entries.withLock { entries in
            let number = (entries.last?.number ?? 0) + 1
            entries.append((number, entry))
            if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
            newest.store(number, ordering: .releasing)
        }
    }

    /// The entries after `cursor`, with the cursor to keep; nil when there are none.
    func pending(after cursor: Int) -> Pending? {
        guard newest.load(ordering: .acquiring) != cursor else { return nil }
        return entries.withLock { entries -> Pending? in
            guard let last = entries.last?.number, last != cursor else { return nil }
            guard let first = entries.first?.number, first <= cursor + 1 else {
                return Pending(entries: [.missed], cursor: last)
            }
            return Pending(entries: entries.filter { $0.number > cursor }.map(\.entry), cursor: last)
        }
    }
}
