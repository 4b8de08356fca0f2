import Foundation
import GraphCore
import PostgresNIO

/// Where a parameter of a fetch's statement takes its value from: a plan kept for a shape
/// (``FetchPlanCache``) binds another request's values by these.
enum BindSource: Equatable {
    /// Not said: a plan with such a parameter is made anew for every request.
    case unknown
    /// The entities a fetch reads: the same for every request of a shape.
    case kinds([String])
    /// The request's `fetchLimit` and `fetchOffset`.
    case limit, offset
    /// The constant numbered `slot` of the request's predicate (``PredicateShape``), in the form `form`.
    case constant(slot: Int, BindForm)

    /// How a constant is bound.
    enum BindForm: Equatable {
        case int, double, intAsDouble, date, bool, uuid, string, objectReference
    }

    /// The values of `sources` for a request with these constants, of the types the first
    /// request of the shape bound; nil when one cannot be made (the plan is then made anew).
    static func binds(_ sources: [BindSource], constants: [Value], request: FetchRequest) -> PostgresBindings? {
        var binds = PostgresBindings()
        for source in sources {
            switch source {
            case .unknown: return nil
            case .kinds(let kinds): binds.append(kinds)
            case .limit: binds.append(Int64(request.fetchLimit))
            case .offset: binds.append(Int64(request.fetchOffset))
            case .constant(let slot, let form):
                guard constants.indices.contains(slot) else { return nil }
                switch (form, constants[slot]) {
                case (.int, .int(let c)): binds.append(c)
                case (.double, .double(let c)): binds.append(c)
                case (.intAsDouble, .int(let c)): binds.append(Double(c))
                case (.date, .date(let d)): binds.append(d.timeIntervalSinceReferenceDate)
                case (.bool, .bool(let b)): binds.append(b)
                case (.uuid, .uuid(let u)): binds.append(u)
                case (.string, .string(let s)): binds.append(s)
                case (.objectReference, .object(let id)):
                    guard case .int(let reference) = id.referenceObject else { return nil }
                    binds.append(reference)
                default: return nil
                }
            }
        }
        return binds
    }
}

/// A store's fetch plans by the request's shape, so that a server's fetches of one shape are
/// translated to SQL once: what decides the SQL text (the entity, the predicate's shape, the
/// sort, whether there is a limit and an offset) is the key, and the request's constants are
/// bound as the statement's parameters. A plan with a parameter that is not simply one of the
/// request's values (a pattern made from a `LIKE` constant) is not kept: such shapes are planned
/// anew for every request, as all were before.
///
/// At most ``limit`` shapes are kept; past it the oldest goes.
struct FetchPlanCache {
    /// What decides a fetch's SQL text.
    struct Shape: Hashable {
        var entityName: String
        var includesSubentities: Bool
        var resultType: FetchResultType
        var returnsObjectsAsFaults: Bool
        var sortDescriptors: [GraphCore.SortDescriptor]
        var limited: Bool
        var offset: Bool
        var readingCommit: Bool
        var predicate: PredicateShape?

        init(_ request: FetchRequest, predicate: PredicateShape?, readingCommit: Bool) {
            entityName = request.entityName
            includesSubentities = request.includesSubentities
            resultType = request.resultType
            returnsObjectsAsFaults = request.returnsObjectsAsFaults
            sortDescriptors = request.sortDescriptors
            limited = request.fetchLimit > 0
            offset = request.fetchOffset > 0
            self.readingCommit = readingCommit
            self.predicate = predicate
        }
    }

    enum Entry {
        /// A plan and where its parameters' values come from.
        case plan(PostgresStore.Plan, [BindSource])
        /// A shape whose plan is made for each request.
        case planAnew
    }

    /// The most shapes kept.
    let limit: Int
    private var entries: [Shape: Entry] = [:]
    /// The shapes in the order they came, the oldest at `oldest` once `limit` are kept.
    private var order: [Shape] = []
    private var oldest = 0

    init(limit: Int) { self.limit = max(1, limit) }

    /// The shapes kept.
    var count: Int { entries.count }

    subscript(shape: Shape) -> Entry? { entries[shape] }

    /// Keeps `entry` for `shape`, letting the oldest shape go when ``limit`` are kept.
    mutating func keep(_ entry: Entry, for shape: Shape) {
        if entries.updateValue(entry, forKey: shape) != nil { return }
        if order.count < limit {
            order.append(shape)
            return
        }
        entries[order[oldest]] = nil
        order[oldest] = shape
        oldest = (oldest + 1) % limit
    }
}
