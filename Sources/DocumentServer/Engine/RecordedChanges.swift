import GraphCore

/// The objects that commits read from the history changed, as each commit left them and as
/// they were before it, from the objects as the database holds them after the last of
/// them (`now`) and the previous values each commit's writer recorded
/// (``CommittedObject/previous``): walking the commits from the last, the object before a
/// commit is the object after it with the recorded values put back, and it is the object
/// after the commit before. An object is not known before a commit that recorded none for
/// it, nor after it unless a later commit of the batch recorded it or it is the last to
/// change it.
struct RecordedChanges {
    /// For each commit (by position in the batch), the objects known before it and after it
    /// (nil for a deleted one, or inserted: before).
    private var before: [[ObjectID: ObjectSnapshot?]]
    private var after: [[ObjectID: ObjectSnapshot?]]

    init(of commits: [StoreCommit], now: [ObjectID: ObjectSnapshot], model: ObjectModel, storeIdentifier: String) {
        before = Array(repeating: [:], count: commits.count)
        after = Array(repeating: [:], count: commits.count)
        // What is known of each object at the point of the walk; absent: not known.
        var known: [ObjectID: ObjectSnapshot?] = [:]
        var seen = Set<ObjectID>()
        for (number, commit) in commits.enumerated().reversed() {
            for object in commit.objects {
                guard let entity = model.entity(named: object.entity) else { continue }
                let id = ObjectID(entity: entity, storeIdentifier: storeIdentifier, reference: .int(object.reference))
                // The last commit to change an object left it as the database holds it now.
                if seen.insert(id).inserted { known[id] = .some(now[id]) }
                if let state = known[id] { after[number][id] = state }
                switch object.kind {
                case .inserted:
                    known[id] = .some(nil)
                case .updated, .deleted:
                    if let previous = object.previous {
                        let later: ObjectSnapshot? = object.kind == .deleted ? nil : known[id] ?? nil
                        // An update whose object after it is not known cannot be rebuilt.
                        if object.kind == .deleted || later != nil, let rebuilt = previous.snapshot(of: id, after: later) {
                            known[id] = .some(rebuilt)
                            before[number][id] = .some(rebuilt)
                            continue
                        }
                    }
                    known[id] = nil
                }
            }
        }
    }

    /// The object as it was before the commit at `number` (nil: not known, or it did not exist).
    func before(_ id: ObjectID, commit number: Int) -> ObjectSnapshot? { before[number][id] ?? nil }
    /// The object as the commit at `number` left it (nil: not known, or deleted).
    func after(_ id: ObjectID, commit number: Int) -> ObjectSnapshot? { after[number][id] ?? nil }
}
