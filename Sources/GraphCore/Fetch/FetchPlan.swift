/// How a store answered a fetch: through an index or by scanning every object, and how
/// many objects it looked at. ``AtomicStore/explain(_:)`` gives it.
///
/// ```swift
/// let plan = try store.explain(request)
/// print(plan)   // "index byEmail on email (==), examined 1 object"
/// ```
public struct FetchPlan: Sendable, Hashable, CustomStringConvertible {
    /// Where the candidates came from.
    public enum Access: Sendable, Hashable {
        /// Every object of the entity (and its sub-entities) was judged.
        case scan
        /// Only the objects an index gave for one term of the predicate (`operation`: `==`,
        /// `IN`, `<`, `BETWEEN`, `BEGINSWITH`, …) or for the order (`ORDER BY`).
        case index(name: String, key: String, operation: String)
    }

    /// Where the candidates came from.
    public var access: Access
    /// Whether the results came in the order of the index, sorted and paged by the store
    /// (no sort of all matches).
    public var isSortedByIndex: Bool
    /// How many objects the predicate was judged on (every candidate).
    public var objectsExamined: Int

    /// A plan.
    public init(access: Access, isSortedByIndex: Bool = false, objectsExamined: Int = 0) {
        self.access = access
        self.isSortedByIndex = isSortedByIndex
        self.objectsExamined = objectsExamined
    }

    /// The plan in a line: `scan, examined 1000 objects`.
    public var description: String {
        let objects = objectsExamined == 1 ? "1 object" : "\(objectsExamined) objects"
        switch access {
        case .scan: return "scan, examined \(objects)"
        case .index(let name, let key, let operation):
            return "index \(name) on \(key) (\(operation))\(isSortedByIndex ? ", sorted by the index" : ""), examined \(objects)"
        }
    }
}
