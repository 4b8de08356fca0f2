import DocumentProtocol
import GraphCore

/// A group commit to a shared database that failed for a conflict (another server saved one of
/// its objects since this server read it): only the saves that wrote or named those objects
/// fail; the others are staged again and committed without them.
extension StoreGraph {
    /// Answers the saves of `saves` that `conflicts` concern with a `conflict` naming their own
    /// objects, then stages the others again (each is checked anew) and commits them. Each
    /// round removes at least one save, so it ends; a conflict no save names (it cannot happen:
    /// a save names every object it writes) fails the whole group rather than loop.
    ///
    /// Called with the group's changes rolled back and ``staged`` empty.
    func commitWithout(conflicting conflicts: [Conflict], of saves: [StagedSave]) {
        var kept: [StagedSave] = []
        for save in saves {
            let objects = Set(save.objects)
            let own = conflicts.filter { objects.contains($0.objectID) || save.checkedVersions[$0.objectID] != nil }
            if own.isEmpty {
                kept.append(save)
            } else {
                save.reply(.error(.conflict(own)))
            }
        }
        guard kept.count < saves.count else {
            let answer = RPCError.conflict(conflicts)
            for save in saves { save.reply(.error(answer)) }
            return
        }
        guard !kept.isEmpty else { return }
        context.reset()
        for save in kept { stage(save.call, reply: save.reply) }
        commit(resetting: false)
    }
}

extension RPCError {
    /// `conflict` (-32001) naming each object with the version read and the version now.
    static func conflict(_ conflicts: [Conflict]) -> RPCError {
        .conflict(conflicts.map { ($0.objectID.uriRepresentation, $0.expectedVersion, $0.currentVersion) })
    }
}
