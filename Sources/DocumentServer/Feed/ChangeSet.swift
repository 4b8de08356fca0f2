import Foundation
import GraphCore

/// One commit as the change feed and its history know it: the currency the journal record,
/// the `changes` notification and the `changes` record are all made from.
///
/// The writer makes one per save it commits (``StoreGraph/commit(resetting:)``): the save's
/// objects before and after, its author (the `client` of its connection's `hello`), the
/// commit's time and number, the same ones its journal record holds. Immutable and `Sendable`:
/// the feed thread filters and encodes it while the writer goes on.
struct ChangeSet: Sendable {
    /// What happened to one object.
    enum Kind: Sendable {
        case inserted, updated, deleted
    }

    /// One changed object: as it was before the commit (nil when inserted, or when not known:
    /// a commit read back from the journal at start whose object's earlier state is not in
    /// the history) and after it (nil when deleted).
    struct Change: Sendable {
        let id: ObjectID
        let kind: Kind
        let before: ObjectSnapshot?
        let after: ObjectSnapshot?
    }

    /// The commit's sequence number.
    let sequence: Int64
    /// Who made it: the `client` its connection named in `hello`, if any.
    let author: String?
    /// When it was made (milliseconds, as its journal record says).
    let timestamp: Date
    let changes: [Change]
    /// The states before and after the commit (its group commit), shared by the change sets of
    /// that group: one reference each, where two states' fields were retained (and released)
    /// for every change set, on the writer and on the feed.
    let states: CommitStates?

    /// The state before the commit (its group commit), for predicates whose key paths lead
    /// through relationships; nil for a commit read back from the journal.
    var stateBefore: ReadState? { states?.before }
    /// The state after the commit (its group commit); nil for a commit read back from the journal.
    var stateAfter: ReadState? { states?.after }

    init(sequence: Int64, author: String?, timestamp: Date, changes: [Change], states: CommitStates?) {
        self.sequence = sequence
        self.author = author
        self.timestamp = timestamp
        self.changes = changes
        self.states = states
    }

    init(sequence: Int64, author: String?, timestamp: Date, changes: [Change], stateBefore: ReadState?, stateAfter: ReadState?) {
        self.init(sequence: sequence, author: author, timestamp: timestamp, changes: changes,
                  states: stateBefore == nil && stateAfter == nil ? nil : CommitStates(before: stateBefore, after: stateAfter))
    }

    /// The same commit without its states (which keep the objects of their time alive): the
    /// history keeps states for its newest commits only (``ChangeFeed/statesKept``).
    func withoutStates() -> ChangeSet {
        ChangeSet(sequence: sequence, author: author, timestamp: timestamp, changes: changes, states: nil)
    }

    /// Whether the commit changed an object of `entity` or of one of its sub-entities: a
    /// filter of an entity that it did not change has nothing to judge (``FeedFilter`` skips
    /// such objects first), which is most commits for most subscriptions.
    func changes(anyOf entity: EntityDescription) -> Bool {
        changes.contains { $0.id.entity.isKind(of: entity) }
    }

    /// The snapshot of `id` after the commit as `get` would answer it then (references to
    /// deleted objects cleared).
    func wireSnapshot(_ change: Change) -> ObjectSnapshot? {
        guard let after = change.after else { return nil }
        guard let state = stateAfter, !state.dangling.isEmpty else { return after }
        return state.dangling.cleared(after) { state.exists($0) }
    }

    /// A time in milliseconds (what the journal's date form keeps).
    static func milliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}

/// The states before and after one group commit, held once for all its change sets.
final class CommitStates: Sendable {
    let before: ReadState?
    let after: ReadState?

    init(before: ReadState?, after: ReadState?) {
        self.before = before
        self.after = after
    }
}
