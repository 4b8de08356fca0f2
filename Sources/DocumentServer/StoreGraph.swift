import DocumentProtocol
import Foundation
import GraphCore
import JSONCore

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
    /// Relationships whose references may outlive their target, read as cleared.
    let dangling: DanglingReferences
    /// A fetch stops encoding its answer past this many bytes (``AnswerTooLarge``).
    var maximumAnswerBytes = Int.max
    /// Objects to put in the cache while the store thread has nothing else to do.
    private var warmUpQueue: ArraySlice<ObjectID> = []

    /// Opens the store (loading an atomic store whole).
    init(model: ObjectModel, storeType: String, storeURL: URL, storeOptions: StoreOptions = StoreOptions(),
         cache: WireObjectCache) throws {
        self.model = model
        self.cache = cache
        dangling = DanglingReferences(model: model)
        coordinator = StoreCoordinator(model: model)
        store = try coordinator.addPersistentStore(type: storeType, at: storeURL, options: storeOptions)
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

    /// The committed state of an object, or nil when the store has none. References to
    /// deleted objects that nothing cleared read as cleared (``DanglingReferences``).
    func snapshot(of id: ObjectID) -> ObjectSnapshot? {
        guard let snapshot = storedSnapshot(of: id) else { return nil }
        return dangling.isEmpty ? snapshot : dangling.cleared(snapshot) { self.exists($0) }
    }

    private func storedSnapshot(of id: ObjectID) -> ObjectSnapshot? {
        guard id.storeIdentifier == store.identifier else { return nil }
        return try? store.snapshot(for: id)
    }

    /// The ID of the object `id` names as the store holds it: an ID may name the object's
    /// entity or one of its ancestors (`graph://S/Animal/7` for `graph://S/Dog/7`). Nil when
    /// there is no such object (an ID naming a sibling entity names none).
    func canonical(_ id: ObjectID) -> ObjectID? {
        if exists(id) { return id }
        guard id.storeIdentifier == store.identifier, let atomic = store as? AtomicStore else { return nil }
        for entity in model.entities where entity.name != id.entity.name && !entity.isAbstract && entity.isKind(of: id.entity) {
            let candidate = atomic.objectID(for: entity, referenceObject: id.referenceObject)
            if atomic.cacheNode(for: candidate) != nil { return candidate }
        }
        return nil
    }

    /// Whether the store holds the object.
    func exists(_ id: ObjectID) -> Bool {
        if let atomic = store as? AtomicStore { return id.storeIdentifier == store.identifier && atomic.cacheNode(for: id) != nil }
        return storedSnapshot(of: id) != nil
    }

    /// `get`, filling the cache with the objects it encodes.
    func get(_ call: GetCall) -> Reply {
        do {
            var objects: [WireObjectCache.Entry?] = []
            objects.reserveCapacity(call.ids.count)
            var answerBytes = 0
            for id in call.ids {
                guard let snapshot = canonical(id).flatMap(snapshot(of:)) else {
                    objects.append(nil)
                    continue
                }
                let bytes = try JSONText.make { try WireObjectEncoder.write(snapshot, to: $0) }
                cache.insert(bytes, version: snapshot.version, for: snapshot.objectID)
                objects.append(WireObjectCache.Entry(version: snapshot.version, bytes: bytes))
                answerBytes += bytes.count + 1
                if answerBytes > maximumAnswerBytes { return .error(.tooLarge(.answer, limit: maximumAnswerBytes)) }
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
        let start = min(max(0, request.fetchOffset), ids.count)
        // The limit counts from `start`, at most `ids.count`: no sum that could overflow.
        let end = request.fetchLimit > 0 ? start + min(request.fetchLimit, ids.count - start) : ids.count
        return Array(ids[start..<end])
    }

    func fetch(_ call: FetchCall) -> Reply {
        do {
            switch call.resultType {
            case .count:
                // The number of objects the same fetch would return: after offset, at most limit.
                var unpaged = call.request
                unpaged.fetchLimit = 0
                unpaged.fetchOffset = 0
                let total = try context.count(for: unpaged)
                let remaining = total - min(max(0, call.request.fetchOffset), total)
                let count = call.request.fetchLimit > 0 ? min(remaining, call.request.fetchLimit) : remaining
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
                        if out.bufferedCount > maximumAnswerBytes { throw AnswerTooLarge(limit: maximumAnswerBytes) }
                    }
                    try out.closeArray()
                    try out.closeObject()
                }
            }
        } catch let error as GraphCore.PredicateError {
            var answer = RPCError.invalidParams("params.predicate", error.description, position: error.offset)
            answer.predicateSubject = PredicatePosition.subject(of: error)
            return .error(answer)
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
