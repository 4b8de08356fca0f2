/// What to fetch: objects of an entity (and its sub-entities, unless told otherwise) that
/// satisfy a predicate, in an order.
///
/// ```swift
/// var request = FetchRequest(entityName: "Song")
/// request.predicate = .key("plays") > 10
/// request.sortDescriptors = [SortDescriptor("title")]
/// let songs = try context.fetch(request)
/// ```
public struct FetchRequest: Sendable, Hashable {
    public var entityName: String
    /// Only objects for which this holds; nil fetches all.
    public var predicate: Predicate?
    /// The order of the results; without any, the order is unspecified.
    public var sortDescriptors: [SortDescriptor]
    /// Whether objects of sub-entities are included (true by default, as Core Data does).
    public var includesSubentities: Bool
    /// At most this many results (0: no limit).
    public var fetchLimit: Int
    /// Skip this many results first.
    public var fetchOffset: Int

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
    }

    /// Whether objects of `entity` are part of this request's results.
    func includes(_ entity: EntityDescription, requested: EntityDescription) -> Bool {
        includesSubentities ? entity.isKind(of: requested) : entity === requested || entity.name == requested.name
    }
}

/// An order of results: a key path, ascending or not.
public struct SortDescriptor: Sendable, Hashable {
    public var keyPath: String
    public var ascending: Bool
    /// Compare strings ignoring case.
    public var caseInsensitive: Bool

    public init(_ keyPath: String, ascending: Bool = true, caseInsensitive: Bool = false) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.caseInsensitive = caseInsensitive
    }
}
