import Foundation

/// A request a coordinator hands to an ``IncrementalStore``.
public enum StoreRequest: Sendable {
    /// Find the objects that match a fetch request; answer ``StoreResponse/fetched(_:)``.
    case fetch(FetchRequest)
    /// Apply a save's changes, checking versions; answer ``StoreResponse/saved(_:)``.
    case save(SaveChangesRequest)
}

/// What an ``IncrementalStore`` answers to a ``StoreRequest``.
public enum StoreResponse: Sendable {
    /// The objects a fetch found (as faults and/or with their values).
    case fetched(StoreFetchResult)
    /// The new versions (and any permanent IDs the store made) of a save.
    case saved(SaveResult)
}

/// An incremental store's answer for one object's values.
public struct IncrementalStoreNode: Sendable, Equatable {
    /// The object's ID.
    public var objectID: ObjectID
    /// The object's version in the store (for optimistic locking).
    public var version: Int64
    /// Values by property name. A relationship left out is loaded through
    /// ``IncrementalStore/newValue(forRelationship:forObjectWith:)``; an attribute left out is nil.
    public var values: [String: Value]

    /// A node for an object's values at a version.
    public init(objectID: ObjectID, version: Int64, values: [String: Value]) {
        self.objectID = objectID
        self.version = version
        self.values = values
    }
}

/// A store that loads objects on demand (a database, a remote server), as Core Data's
/// incremental stores do.
///
/// A subclass implements:
/// - ``PersistentStore/loadMetadata()``: open the store and set ``PersistentStore/metadata``;
/// - ``execute(_:)``: answer fetches (translating the predicate, or evaluating it) and apply
///   saves all or nothing, checking each updated or deleted object's version;
/// - ``newValues(forObjectWith:)``: one object's values and version;
/// - ``newValue(forRelationship:forObjectWith:)``: a relationship left out of a node;
/// - ``PersistentStore/obtainPermanentIDs(for:)``: IDs for objects about to be inserted.
///
/// These may block on I/O: the coordinator calls them one at a time for this store, without
/// holding its own lock, so a slow answer stalls only the contexts waiting for this store
/// (see ``PersistentStore``, Threads).
open class IncrementalStore: PersistentStore, @unchecked Sendable {
    // Sendable for the same reason as every store: its coordinator makes one call at a time.

    /// Answers a fetch or a save request.
    open func execute(_ request: StoreRequest) throws -> StoreResponse {
        throw GraphError.store("\(type(of: self)) does not implement execute(_:)")
    }

    /// The values and version of one object.
    ///
    /// - Throws: ``GraphError/objectNotFound(_:)`` when the store has no such object.
    open func newValues(forObjectWith id: ObjectID) throws -> IncrementalStoreNode {
        throw GraphError.store("\(type(of: self)) does not implement newValues(forObjectWith:)")
    }

    /// The value of a relationship (``Value/object(_:)``, ``Value/objects(_:)`` or nil).
    open func newValue(forRelationship name: String, forObjectWith id: ObjectID) throws -> Value {
        throw GraphError.store("\(type(of: self)) does not implement newValue(forRelationship:forObjectWith:)")
    }

    /// A permanent ID for the object with this ID (temporary) and entity.
    public func newObjectID(for entity: EntityDescription, referenceObject: ReferenceObject) -> ObjectID {
        ObjectID(entity: entity, storeIdentifier: identifier, reference: referenceObject)
    }

    /// The reference an ID of this store holds.
    public func referenceObject(for id: ObjectID) -> ReferenceObject { id.referenceObject }

    // MARK: - Bridging to the coordinator

    /// Hands the request to ``execute(_:)`` as ``StoreRequest/fetch(_:)``.
    ///
    /// - Throws: the error of ``execute(_:)``; ``GraphError/store(_:)`` when it answers with
    ///   something other than ``StoreResponse/fetched(_:)``.
    public final override func fetch(_ request: FetchRequest) throws -> StoreFetchResult {
        guard case .fetched(let result) = try execute(.fetch(request)) else {
            throw GraphError.store("\(type(of: self)) answered a fetch with something else")
        }
        return result
    }

    /// An object's values from ``newValues(forObjectWith:)``, with the relationships it left out
    /// loaded through ``newValue(forRelationship:forObjectWith:)`` and the attributes it left out
    /// nil; nil when ``newValues(forObjectWith:)`` throws ``GraphError/objectNotFound(_:)``.
    public final override func snapshot(for id: ObjectID) throws -> ObjectSnapshot? {
        let node: IncrementalStoreNode
        do {
            node = try newValues(forObjectWith: id)
        } catch GraphError.objectNotFound {
            return nil
        }
        let entity = id.entity
        var values = entity.initialValues
        for (index, property) in entity.properties.enumerated() {
            if let value = node.values[property.name] {
                values[index] = value
            } else if case .relationship = property {
                values[index] = try newValue(forRelationship: property.name, forObjectWith: id)
            } else {
                values[index] = .null
            }
        }
        return ObjectSnapshot(objectID: id, version: node.version, values: values)
    }

    /// Hands the request to ``execute(_:)`` as ``StoreRequest/save(_:)``.
    ///
    /// - Throws: ``GraphError/readOnlyStore(_:)`` for a store opened read-only; the error of
    ///   ``execute(_:)``.
    public final override func save(_ request: SaveChangesRequest) throws -> SaveResult {
        if options.isReadOnly { throw GraphError.readOnlyStore(url?.absoluteString ?? identifier) }
        guard case .saved(let result) = try execute(.save(request)) else {
            throw GraphError.store("\(type(of: self)) answered a save with something else")
        }
        return result
    }
}
