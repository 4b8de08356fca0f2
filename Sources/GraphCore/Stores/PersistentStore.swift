import Foundation

/// The base of every store: it holds objects for a coordinator.
///
/// Subclass ``AtomicStore`` for a store that keeps everything in memory and reads and
/// writes it whole, or ``IncrementalStore`` for one that loads on demand. Register the
/// subclass under a type name with ``StoreRegistry/register(_:as:)``.
///
/// ## Threads
///
/// A store is used by one coordinator, which makes one call into it at a time: a store
/// needs no lock of its own for the coordinator's calls, though successive calls may come
/// from different threads. Calls into *other* stores of the coordinator run meanwhile, and
/// the coordinator's own lock is not held during a call, so a call may take as long as its
/// I/O needs (a network round trip): it holds up only the callers that need this store. Bound
/// that time (a request timeout), and do not call the coordinator's fetches, faults or saves
/// from inside a call (the call would wait for itself). Calling a store's methods directly,
/// beside its coordinator, is not serialized with the coordinator's calls.
open class PersistentStore: @unchecked Sendable {
    // Safe to mark Sendable: the coordinator makes one call at a time into a store (see
    // `StoreAccess`), and the stored properties that are not `let` are only touched by those
    // calls (and by `addPersistentStore` before the store is shared).

    /// The coordinator that opened the store; nil once it is gone.
    public private(set) weak var coordinator: StoreCoordinator?
    /// Where the store lives; nil for a store without a location (``InMemoryStore``).
    public let url: URL?
    /// The configuration the store was opened for, if any.
    public let configurationName: String?
    /// The options the store was opened with.
    public let options: StoreOptions
    /// The store's metadata; a subclass sets it when it loads (a new store has a new UUID).
    /// Once the store is added, the coordinator reads it (``identifier``) from any thread
    /// while the store works: set it only in ``loadMetadata()``.
    public var metadata: StoreMetadata

    /// Opens a store. Subclasses do their set-up here, and their reading in `loadMetadata()`.
    public required init(coordinator: StoreCoordinator, configurationName: String?, url: URL?, options: StoreOptions) throws {
        self.coordinator = coordinator
        self.url = url
        self.configurationName = configurationName
        self.options = options
        self.metadata = StoreMetadata(storeType: String(describing: Self.self))
    }

    /// The store's UUID.
    public var identifier: String { metadata.storeIdentifier }

    /// The model of the coordinator.
    public var model: ObjectModel? { coordinator?.model }

    /// Reads the store's metadata (an atomic store loads everything here).
    open func loadMetadata() throws {}

    /// Called when the coordinator removes the store: release files and locks here.
    open func willRemove() {}

    /// The IDs and snapshots of the objects matching a fetch request (no sorting needed).
    open func fetch(_ request: FetchRequest) throws -> StoreFetchResult {
        throw GraphError.store("\(type(of: self)) does not implement fetch")
    }

    /// The snapshot of one object, or nil when the store has no such object.
    open func snapshot(for id: ObjectID) throws -> ObjectSnapshot? {
        throw GraphError.store("\(type(of: self)) does not implement snapshot(for:)")
    }

    /// Called when a context turned some of this store's objects back into faults (a
    /// refresh, a merge of another context's save): their values will be read again. A store
    /// that loads faults in batches may load these together when the first one fires. The
    /// default does nothing.
    open func objectsDidBecomeFaults(_ ids: [ObjectID]) {}

    /// Whether this store gives inserted objects their permanent IDs only when it applies the
    /// save (a server that numbers objects as it commits them). Such a store answers the save
    /// with ``SaveResult/permanentIDs``, and contexts do not ask it for IDs beforehand. False
    /// by default.
    open var assignsPermanentIDsWhenSaving: Bool { false }

    /// Permanent IDs of this store for objects about to be inserted (their snapshots carry
    /// temporary IDs), in the same order.
    open func obtainPermanentIDs(for snapshots: [ObjectSnapshot]) throws -> [ObjectID] {
        throw GraphError.store("\(type(of: self)) does not implement obtainPermanentIDs(for:)")
    }

    /// Applies a save, all or nothing. Inserted objects may come with temporary IDs (the
    /// store makes permanent ones) or with IDs from ``PersistentStore/obtainPermanentIDs(for:)``.
    open func save(_ request: SaveChangesRequest) throws -> SaveResult {
        throw GraphError.store("\(type(of: self)) does not implement save")
    }
}

/// What a store answers to a fetch: objects with their values, and objects as faults, or
/// only their number.
public struct StoreFetchResult: Sendable {
    /// Objects whose values the store has at hand.
    public var snapshots: [ObjectSnapshot]
    /// Objects returned as faults: their values load when first read.
    public var faults: [ObjectID]
    /// For a request whose ``FetchRequest/resultType`` is ``FetchResultType/count``: the
    /// number of matching objects, within the request's offset and limit, when the store
    /// counted them itself (then `snapshots` and `faults` are empty).
    public var count: Int?
    /// Whether the store applied the request's sort descriptors, offset and limit itself:
    /// `snapshots` then `faults` are the results in order, and the context does not sort or
    /// page them again. A store that leaves this false may ignore all three.
    public var isSortedAndPaged: Bool

    /// A fetch result (empty, unsorted by default).
    public init(snapshots: [ObjectSnapshot] = [], faults: [ObjectID] = [], count: Int? = nil, isSortedAndPaged: Bool = false) {
        self.snapshots = snapshots
        self.faults = faults
        self.count = count
        self.isSortedAndPaged = isSortedAndPaged
    }
}
