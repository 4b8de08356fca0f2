import Foundation
import GraphCore
import JSONAtomicStore

/// The server's object graph: one coordinator, one store, one context. It belongs to the
/// store thread (``StoreWorker``) and is used by nothing else, so it needs no locks.
///
/// Reads answer from the store's committed state. Saves run through GraphCore: each one in
/// a child context of ``context`` (inverses, delete rules, validation), pushed into it when
/// valid; ``commit()`` then writes every pushed save with one durable store save.
final class StoreGraph {
    let model: ObjectModel
    let coordinator: StoreCoordinator
    let store: PersistentStore
    /// Holds the changes of the saves staged since the last commit, and nothing else.
    let context: ObjectContext
    /// Saves pushed into ``context``, answered at the next commit.
    var staged: [StagedSave] = []
    /// Every object the staged saves insert, change or delete.
    var touched: Set<ObjectID> = []
    /// Wire forms of committed objects, shared with the connections.
    let cache: WireObjectCache

    /// Opens the store (loading an atomic store whole).
    init(model: ObjectModel, storeType: String, storeURL: URL, cache: WireObjectCache) throws {
        self.model = model
        self.cache = cache
        coordinator = StoreCoordinator(model: model)
        store = try coordinator.addPersistentStore(type: storeType, at: storeURL)
        context = ObjectContext(coordinator: coordinator)
    }

    /// Releases the store (and its lock).
    func close() {
        coordinator.remove(store)
    }

    /// How many objects the store holds (for the start-up log).
    var objectCount: Int {
        (store as? AtomicStore)?.cacheNodeCount
            ?? model.entities.filter { !$0.isAbstract }.reduce(0) { total, entity in
                total + ((try? context.count(for: FetchRequest(entityName: entity.name, includesSubentities: false))) ?? 0)
            }
    }

    // MARK: - Reads

    /// The committed state of an object, or nil when the store has none.
    func snapshot(of id: ObjectID) -> ObjectSnapshot? {
        guard id.storeIdentifier == store.identifier else { return nil }
        return try? store.snapshot(for: id)
    }

    /// `get`, filling the cache with the objects it encodes.
    func get(_ call: GetCall) -> Reply {
        do {
            var objects: [[UInt8]?] = []
            objects.reserveCapacity(call.ids.count)
            for id in call.ids {
                guard let snapshot = snapshot(of: id) else {
                    objects.append(nil)
                    continue
                }
                let bytes = try JSONText.make { try WireObjectEncoder.write(snapshot, to: $0) }
                cache.insert(bytes, for: id)
                objects.append(bytes)
            }
            return .result(GetCall.result(call.ids, objects))
        } catch {
            return .error(.storeUnavailable("an object could not be encoded: \(error)"))
        }
    }

    func fetch(_ call: FetchCall) -> Reply {
        do {
            switch call.resultType {
            case .count:
                let count = try context.count(for: call.request)
                return .result { out in
                    try out.openObject()
                    try out.string("count")
                    try out.integer(Int64(count))
                    try out.closeObject()
                }
            case .ids, .objects:
                let ids = try context.fetchObjectIDs(call.request)
                let objects = call.resultType == .objects
                return .result { out in
                    try out.openObject()
                    try out.string(objects ? "objects" : "ids")
                    try out.openArray()
                    for id in ids {
                        if !objects {
                            try out.string(id.uriRepresentation)
                        } else if let snapshot = snapshot(of: id) {
                            try WireObjectEncoder.write(snapshot, to: out)
                        }
                    }
                    try out.closeArray()
                    try out.closeObject()
                }
            }
        } catch let error as GraphCore.PredicateError {
            return .error(.invalidParams("params.predicate", error.description, position: error.offset))
        } catch let error as GraphError {
            switch error {
            case .unknownKey, .wrongKind, .typeMismatch:
                return .error(.invalidParams("params", error.description))
            default:
                return .error(.storeUnavailable("the fetch failed: \(error)"))
            }
        } catch {
            return .error(.storeUnavailable("the fetch failed: \(error)"))
        }
    }
}
