/// A named fetch request kept in a model (Core Data's fetch request template): an entity and
/// a predicate, parsed when the model is loaded.
public struct FetchRequestTemplate: Sendable, Hashable {
    /// The template's name, unique in the model.
    public var name: String
    /// The entity it fetches.
    public var entityName: String
    /// The predicate's format string as written, if it has one.
    public var predicateFormat: String?
    /// The parsed predicate (nil: every object). It may hold `$variables` to substitute
    /// with ``Predicate/withSubstitutionVariables(_:)`` before use.
    public var predicate: Predicate?
    /// The most objects it returns, if limited.
    public var fetchLimit: Int?

    /// Describes a template; `predicateFormat` is parsed with GraphCore's predicate parser.
    ///
    /// - Throws: ``PredicateError`` when the predicate does not parse.
    public init(name: String, entityName: String, predicateFormat: String? = nil, fetchLimit: Int? = nil) throws(PredicateError) {
        self.name = name
        self.entityName = entityName
        self.predicateFormat = predicateFormat
        self.fetchLimit = fetchLimit
        if let predicateFormat {
            predicate = try Predicate(format: predicateFormat, arguments: [])
        }
    }
}
