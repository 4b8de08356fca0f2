/// What to fetch: objects of an entity (and its sub-entities, unless told otherwise) that
/// satisfy a predicate, in an order, a page of them.
///
/// ```swift
/// var request = FetchRequest(entityName: "Song")
/// request.predicate = try Predicate(format: "plays > %d AND album.title BEGINSWITH[c] %@", 10, "kind")
/// request.sortDescriptors = [SortDescriptor("album.title"), SortDescriptor("plays", ascending: false)]
/// request.fetchLimit = 20
/// let songs = try context.fetch(request)               // [ManagedObject]
/// let ids = try context.fetchObjectIDs(request)        // [ObjectID]
/// let count = try context.count(for: request)          // Int
/// let rows = try context.fetchDictionaries(request)    // [[String: Value]]
/// ```
///
/// The result type is the method called. Sorting, offset and limit apply after the store's
/// results are merged with the context's unsaved changes.
public struct FetchRequest: Sendable, Hashable {
    /// The entity whose objects are fetched.
    public var entityName: String
    /// Only objects for which this holds; nil fetches all.
    public var predicate: Predicate?
    /// The order of the results: by the first descriptor, ties broken by the next. Without
    /// any, the order is unspecified.
    public var sortDescriptors: [SortDescriptor]
    /// Whether objects of sub-entities are included (true by default, as in Core Data).
    public var includesSubentities: Bool
    /// At most this many results (0: no limit).
    public var fetchLimit: Int
    /// Skip this many results first (after sorting).
    public var fetchOffset: Int
    /// The identifiers (``PersistentStore/identifier``) of the stores to fetch from; nil (the
    /// default) fetches from every store of the coordinator. A fetch that names only fast
    /// stores never waits for a slow one (Core Data's `affectedStores`).
    public var affectedStoreIdentifiers: [String]?
    /// Whether the context's unsaved inserts, updates and deletes count (true by default).
    /// When false, the results are what the store (or parent context) holds, though the
    /// objects returned still carry this context's unsaved values.
    public var includesPendingChanges: Bool
    /// Whether objects not yet registered in the context come back as faults, their values
    /// loaded when first read. False by default (unlike Core Data): the store hands the
    /// values over with the result, and keeping them is cheaper than loading them again.
    public var returnsObjectsAsFaults: Bool
    /// The key paths (attributes, relationships, or across to-one relationships:
    /// `album.title`) that ``ObjectContext/fetchDictionaries(_:)`` puts in each dictionary;
    /// nil puts every attribute. Fetches of objects always load whole objects.
    public var propertiesToFetch: [String]?
    /// What the context needs from its store for this request. The context's fetch methods
    /// set it on the request they hand down (``ObjectContext/fetch(_:)``: objects,
    /// ``ObjectContext/fetchObjectIDs(_:)``: IDs, ``ObjectContext/count(for:)``: a count), so a
    /// store that can answer with less (a remote store sending only IDs or a number) may.
    public var resultType: FetchResultType
    /// When set, the fetch stops at this instant with ``GraphError/timeLimitExceeded(entity:)``
    /// instead of answering late: the stores and the context check it while they scan
    /// objects, evaluate the predicate (subqueries, aggregates, long `MATCHES` texts) and
    /// sort. Nil (the default) lets a fetch take as long as it needs.
    ///
    /// ```swift
    /// request.deadline = .now + .seconds(2)
    /// ```
    public var deadline: ContinuousClock.Instant?
    /// When set, a store that reads the fetch's results from elsewhere (a database's rows)
    /// stops once they take more than this many bytes as it read them, with
    /// ``GraphError/resultTooLarge(entity:limit:)``, instead of holding them all: a server sets
    /// it from the largest answer it may send, which such a result could not fit in. Stores
    /// that hold their objects in memory ignore it. Nil (the default): no limit.
    public var resultBytesLimit: Int?

    /// A request for objects of `entityName`.
    public init(
        entityName: String,
        predicate: Predicate? = nil,
        sortDescriptors: [SortDescriptor] = [],
        includesSubentities: Bool = true
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.includesSubentities = includesSubentities
        self.fetchLimit = 0
        self.fetchOffset = 0
        self.affectedStoreIdentifiers = nil
        self.includesPendingChanges = true
        self.returnsObjectsAsFaults = false
        self.propertiesToFetch = nil
        self.resultType = .objects
        self.deadline = nil
        self.resultBytesLimit = nil
    }

    /// Whether objects of `entity` are part of this request's results.
    func includes(_ entity: EntityDescription, requested: EntityDescription) -> Bool {
        includesSubentities ? entity.isKind(of: requested) : entity === requested || entity.name == requested.name
    }
}

/// What a fetch asks its store for; see ``FetchRequest/resultType``.
public enum FetchResultType: Sendable, Hashable {
    /// The objects (their values, or faults when ``FetchRequest/returnsObjectsAsFaults``).
    case objects
    /// Only the IDs of the objects.
    case objectIDs
    /// Only how many objects match (a store that cannot count answers with IDs or objects).
    case count
}
