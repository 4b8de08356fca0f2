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
    /// Objects to put in the cache while the store thread has nothing else to do.
    private var warmUpQueue: ArraySlice<ObjectID> = []

    /// Opens the store (loading an atomic store whole).
    init(model: ObjectModel, storeType: String, storeURL: URL, cache: WireObjectCache) throws {
        self.model = model
        self.cache = cache
        coordinator = StoreCoordinator(model: model)
        store = try coordinator.addPersistentStore(type: storeType, at: storeURL)
        context = ObjectContext(coordinator: coordinator)
    }

    /// Plans to fill the cache with the store's objects, a few at a time (an atomic store
    /// holds them all in memory anyway; the cache adds their wire form, up to 3/4 of its limit).
    func planCacheWarmUp() {
        warmUpQueue = ArraySlice((store as? AtomicStore)?.cacheNodes().map(\.objectID) ?? [])
    }

    /// Puts up to `count` more objects in the cache; false when there is nothing left to do.
    func warmCache(count: Int) -> Bool {
        guard !warmUpQueue.isEmpty, cache.byteCount < cache.byteLimit / 4 * 3 else {
            warmUpQueue = []
            return false
        }
        for id in warmUpQueue.prefix(count) {
            guard let snapshot = snapshot(of: id),
                  let bytes = try? JSONText.make({ try WireObjectEncoder.write(snapshot, to: $0) })
            else { continue }
            cache.insert(bytes, version: snapshot.version, for: id)
        }
        warmUpQueue = warmUpQueue.dropFirst(count)
        return true
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
            var objects: [WireObjectCache.Entry?] = []
            objects.reserveCapacity(call.ids.count)
            for id in call.ids {
                guard let snapshot = snapshot(of: id) else {
                    objects.append(nil)
                    continue
                }
                let bytes = try JSONText.make { try WireObjectEncoder.write(snapshot, to: $0) }
                cache.insert(bytes, version: snapshot.version, for: id)
                objects.append(WireObjectCache.Entry(version: snapshot.version, bytes: bytes))
            }
            return .result(call.result(objects))
        } catch {
            return .error(.storeUnavailable("an object could not be encoded: \(error)"))
        }
    }

    /// The IDs a fetch request matches. Without sort descriptors they come by entity name,
    /// then reference, so that `limit` and `offset` page through a stable order.
    private func fetchIDs(_ request: FetchRequest) throws -> [ObjectID] {
        guard request.sortDescriptors.isEmpty else { return try context.fetchObjectIDs(request) }
        var unpaged = request
        unpaged.fetchLimit = 0
        unpaged.fetchOffset = 0
        let ids = try context.fetchObjectIDs(unpaged).sorted(by: WireObjectEncoder.referenceOrder)
        let start = min(request.fetchOffset, ids.count)
        let end = request.fetchLimit > 0 ? min(start + request.fetchLimit, ids.count) : ids.count
        return Array(ids[start..<end])
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
                let ids = try fetchIDs(call.request)
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
            case .timeLimitExceeded(let entity):
                return .error(.timeLimitExceeded(entity: entity, limit: call.timeLimit))
            default:
                return .error(.storeUnavailable("the fetch failed: \(error)"))
            }
        } catch {
            return .error(.storeUnavailable("the fetch failed: \(error)"))
        }
    }
}
