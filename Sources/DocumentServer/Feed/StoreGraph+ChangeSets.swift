import Foundation
import GraphCore

extension StoreGraph {
    /// The change sets of a group commit that took the store from `before` to ``state``, made
    /// from what the store's commit returned (`sequences`, its ``SaveResult/sequences``; for a
    /// store that does not number its commits, the numbers between the two states): one per
    /// save with its number, when the store numbered each save (one journal record or history
    /// row per save); else one for the whole commit (a store that wrote it as one). Objects no
    /// save names (none are expected) go to the last save's, as in the journal.
    func changeSets(of saves: [StagedSave], changed: [ObjectID], before: ReadState, time: Date, sequences: [Int64]) -> [ChangeSet] {
        let after = state
        guard after.sequence > before.sequence else { return [] }  // published without a number of its own
        let numbers = sequences.isEmpty ? Array(before.sequence + 1...after.sequence) : sequences
        guard !numbers.isEmpty else { return [] }
        func change(_ id: ObjectID, deleted: Set<ObjectID>, inserted: Set<ObjectID>) -> ChangeSet.Change {
            let kind: ChangeSet.Kind = deleted.contains(id) ? .deleted : inserted.contains(id) ? .inserted : .updated
            return ChangeSet.Change(id: id, kind: kind, before: kind == .inserted ? nil : before.storedSnapshot(of: id),
                                    after: kind == .deleted ? nil : after.storedSnapshot(of: id) ?? context.savedSnapshot(of: id))
        }
        let deleted = Set(saves.flatMap(\.deleted)), inserted = Set(saves.flatMap { $0.inserted.map(\.object.objectID) })
        let named = Set(saves.flatMap(\.objects))
        let states = CommitStates(before: before, after: after)
        let unnamed = changed.filter { !named.contains($0) }
        guard numbers.count == saves.count else {
            let authors = Set(saves.map(\.author))
            let ids = saves.flatMap(\.objects) + unnamed
            return [ChangeSet(sequence: after.sequence, author: authors.count == 1 ? saves.first?.author : nil, timestamp: time,
                              changes: ids.map { change($0, deleted: deleted, inserted: inserted) },
                              states: states)]
        }
        return saves.enumerated().map { index, save in
            let ids = index == saves.count - 1 ? save.objects + unnamed : save.objects
            return ChangeSet(sequence: numbers[index], author: save.author, timestamp: time,
                             changes: ids.map { change($0, deleted: deleted, inserted: inserted) },
                             states: states)
        }
    }
}
