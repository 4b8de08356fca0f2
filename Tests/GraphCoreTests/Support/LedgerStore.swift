import Dispatch
import Foundation
@testable import GraphCore

/// An incremental store over a dictionary that can be told to stall, as a database or a server
/// that stops answering would: a fault (``newValues(forObjectWith:)``) or a fetch waits until
/// the test releases it.
///
/// It has no lock of its own on purpose: it relies on its coordinator making one call at a
/// time into it, so ThreadSanitizer reports any call the coordinator lets overlap.
final class LedgerStore: IncrementalStore, @unchecked Sendable {
    // Sendable as every store: its coordinator makes one call at a time into it.

    /// The type name it is registered under.
    static let storeType = "LedgerTest"

    static func register() {
        StoreRegistry.register(LedgerStore.self, as: storeType)
    }

    /// A record: its version and its values in the entity's property order.
    struct Record {
        var version: Int64
        var values: [Value]
    }

    private var records: [ObjectID: Record] = [:]
    private var nextReference = 1
    /// While set, faults and fetches stall on `release`; `entered` is signalled as each one starts.
    private let stall = Stall()
    /// How long each fetch takes, as a database's would (0 by default); set it before the store is shared.
    var fetchTime: TimeInterval = 0

    /// A gate the test closes and opens from its own thread.
    final class Stall: Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let isClosed = Locked(false)
    }

    /// From now on, faults and fetches wait until ``openStall()``.
    func closeStall() { stall.isClosed.withLock { $0 = true } }

    /// Lets the stalled calls (and later ones) through.
    func openStall() {
        stall.isClosed.withLock { $0 = false }
        stall.release.signal()
    }

    /// Waits until a call is stalled; false after `seconds` without one.
    func waitUntilStalled(seconds: Double) -> Bool {
        stall.entered.wait(timeout: .now() + seconds) == .success
    }

    private func pauseIfStalled() {
        guard stall.isClosed.withLock({ $0 }) else { return }
        stall.entered.signal()
        stall.release.wait()
        stall.release.signal()  // let any other stalled call through too
    }

    /// Adds an object as if another program had saved it; call it before the store is shared.
    func seed(_ entityName: String, values: [String: Value]) throws -> ObjectID {
        guard let entity = model?.entity(named: entityName) else { throw GraphError.unknownEntity(entityName) }
        let id = newID(for: entity)
        var row = entity.initialValues
        for (name, value) in values {
            guard let index = entity.index(ofProperty: name) else { throw GraphError.unknownKey(entity: entityName, key: name) }
            row[index] = value
        }
        records[id] = Record(version: 1, values: row)
        return id
    }

    override func loadMetadata() throws {
        metadata.userInfo["backend"] = "ledger"
    }

    override func execute(_ request: StoreRequest) throws -> StoreResponse {
        switch request {
        case .fetch(let fetch):
            pauseIfStalled()
            if fetchTime > 0 { Thread.sleep(forTimeInterval: fetchTime) }
            return .fetched(StoreFetchResult(snapshots: try matching(fetch)))
        case .save(let save):
            return .saved(try apply(save))
        }
    }

    override func newValues(forObjectWith id: ObjectID) throws -> IncrementalStoreNode {
        pauseIfStalled()
        guard let record = records[id] else { throw GraphError.objectNotFound(id) }
        var values: [String: Value] = [:]
        for (index, property) in id.entity.properties.enumerated() { values[property.name] = record.values[index] }
        return IncrementalStoreNode(objectID: id, version: record.version, values: values)
    }

    override func newValue(forRelationship name: String, forObjectWith id: ObjectID) throws -> Value {
        guard let record = records[id], let index = id.entity.index(ofProperty: name) else { throw GraphError.objectNotFound(id) }
        return record.values[index]
    }

    override func obtainPermanentIDs(for snapshots: [ObjectSnapshot]) throws -> [ObjectID] {
        snapshots.map { newID(for: $0.objectID.entity) }
    }

    private func newID(for entity: EntityDescription) -> ObjectID {
        defer { nextReference += 1 }
        return newObjectID(for: entity, referenceObject: .string("ledger-\(nextReference)"))
    }

    private func matching(_ request: FetchRequest) throws -> [ObjectSnapshot] {
        guard let model, let entity = model.entity(named: request.entityName) else {
            throw GraphError.unknownEntity(request.entityName)
        }
        let nodes = records.map { ObjectSnapshot(objectID: $0.key, version: $0.value.version, values: $0.value.values) }
        let byID = Dictionary(uniqueKeysWithValues: nodes.map { ($0.objectID, $0) })
        let evaluator = try request.predicate.map { try PredicateEvaluator<ObjectSnapshot>($0, entity: entity, resolve: { byID[$0] }) }
        return try nodes.filter { node in
            guard request.includes(node.objectID.entity, requested: entity) else { return false }
            return try evaluator?.matches(node) ?? true
        }
    }

    /// All or nothing, with optimistic locking.
    private func apply(_ request: SaveChangesRequest) throws -> SaveResult {
        var conflicts: [Conflict] = []
        for snapshot in request.updatedObjects + request.deletedObjects + request.lockedObjects {
            let current = records[snapshot.objectID]?.version
            if current != snapshot.version {
                conflicts.append(Conflict(objectID: snapshot.objectID, expectedVersion: snapshot.version, currentVersion: current))
            }
        }
        if !conflicts.isEmpty { throw GraphError.conflict(conflicts) }
        var result = SaveResult()
        for snapshot in request.insertedObjects where snapshot.objectID.isTemporary {
            result.permanentIDs[snapshot.objectID] = newID(for: snapshot.objectID.entity)
        }
        for snapshot in request.insertedObjects {
            let id = result.permanentIDs[snapshot.objectID] ?? snapshot.objectID
            records[id] = Record(version: 1, values: AtomicStore.rewrite(snapshot.values, result.permanentIDs))
        }
        for snapshot in request.updatedObjects {
            let version = snapshot.version + 1
            records[snapshot.objectID] = Record(version: version, values: AtomicStore.rewrite(snapshot.values, result.permanentIDs))
            result.versions[snapshot.objectID] = version
        }
        for snapshot in request.deletedObjects { records[snapshot.objectID] = nil }
        return result
    }
}
