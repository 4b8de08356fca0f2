import GraphCore

/// Judges row rules on objects of one committed state: each rule prepared once per entity
/// (a ``SnapshotFetch``), its key paths resolved in that state. A rule that cannot be judged
/// on an object (a value of another type than it expects, a time limit) does not hold:
/// rules fail closed. Not `Sendable`: made for one request.
final class RowRules {
    private let model: ObjectModel
    private let resolve: (ObjectID) -> ObjectSnapshot?
    private var prepared: [String: SnapshotFetch?] = [:]

    init(model: ObjectModel, resolve: @escaping (ObjectID) -> ObjectSnapshot?) {
        self.model = model
        self.resolve = resolve
    }

    convenience init(state: ReadState) {
        self.init(model: state.model, resolve: { state.storedSnapshot(of: $0) })
    }

    /// Whether `access` lets `snapshot` through.
    func permits(_ access: Access, _ snapshot: ObjectSnapshot) -> Bool {
        switch access {
        case .none: return false
        case .all: return true
        case .rule(let predicate): return holds(predicate, on: snapshot)
        }
    }

    /// Whether `predicate` holds for `snapshot`.
    func holds(_ predicate: GraphCore.Predicate, on snapshot: ObjectSnapshot) -> Bool {
        if case .constant(let value) = predicate { return value }
        let entity = snapshot.objectID.entity.name
        let key = entity + "\u{0}" + predicate.description
        let fetch: SnapshotFetch?
        if let known = prepared[key] {
            fetch = known
        } else {
            var request = FetchRequest(entityName: entity)
            request.predicate = predicate
            fetch = try? SnapshotFetch(request, model: model, resolve: resolve)
            prepared[key] = fetch
        }
        guard let fetch else { return false }
        return (try? fetch.matches(snapshot)) ?? false
    }
}
