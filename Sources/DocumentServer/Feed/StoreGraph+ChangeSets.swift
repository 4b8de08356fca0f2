import Foundation
import GraphCore

extension StoreGraph {
    /// The change sets of a group commit that took the store from `before` to ``state``: one
    /// per save, numbered in order, when the store numbered each save (one journal record per
    /// save); else one for the whole commit (a store that wrote it as one). Objects no save
    /// names (none are expected) go to the last save's, as in the journal.
    func changeSets(of saves: [StagedSave], changed: [ObjectID], before: ReadState, time: Date) -> [ChangeSet] {
        let after = state
        let commits = after.sequence - before.sequence
        guard commits > 0 else { return [] }
        func change(_ id: ObjectID, deleted: Set<ObjectID>, inserted: Set<ObjectID>) -> ChangeSet.Change {
            let kind: ChangeSet.Kind = deleted.contains(id) ? .deleted : inserted.contains(id) ? .inserted : .updated
            return ChangeSet.Change(id: id, kind: kind, before: kind == .inserted ? nil : before.storedSnapshot(of: id),
                                    after: kind == .deleted ? nil : after.storedSnapshot(of: id))
        }
        let deleted = Set(saves.flatMap(\.deleted)), inserted = Set(saves.flatMap { $0.inserted.map(\.object.objectID) })
        let named = Set(saves.flatMap(\.objects))
        let unnamed = changed.filter { !named.contains($0) }
        guard commits == Int64(saves.count) else {
            let authors = Set(saves.map(\.author))
            let ids = saves.flatMap(\.objects) + unnamed
            return [ChangeSet(sequence: after.sequence, author: authors.count == 1 ? saves.first?.author : nil, timestamp: time,
                              changes: ids.map { change($0, deleted: deleted, inserted: inserted) },
                              stateBefore: before, stateAfter: after)]
        }
        return saves.enumerated().map { index, save in
            let ids = index == saves.count - 1 ? save.objects + unnamed : save.objects
            return ChangeSet(sequence: before.sequence + 1 + Int64(index), author: save.author, timestamp: time,
                             changes: ids.map { change($0, deleted: deleted, inserted: inserted) },
                             stateBefore: before, stateAfter: after)
        }
    }
}
