import DocumentProtocol
import GraphCore
import JSONCore

/// The parameters of `fetch`, checked and turned into a fetch request before the store
/// thread sees them.
struct FetchCall: Sendable {
    enum ResultType: String, Sendable {
        case objects, ids, count
    }

    private(set) var request: FetchRequest
    let resultType: ResultType
    /// Whether the answer carries the plan (`explain: true`).
    var explain = false
    /// The commit the answer must hold (`after`): a `seq` any server answered (nil: any).
    var after: Int64?
    /// Whether the answer comes in parts as the matches are found (`stream: true`,
    /// ``AnswerParts``): its whole may pass the answer's limit, each line may not.
    var stream = false
    /// The time limit the request runs under, once ``started(timeLimit:)`` set its deadline.
    private(set) var timeLimit: Duration?

    /// The call with its deadline set `timeLimit` from now (nil: no limit), as the store
    /// reader begins it.
    func started(timeLimit: Duration?) -> FetchCall {
        var call = self
        call.timeLimit = timeLimit
        call.request.deadline = timeLimit.map { ContinuousClock.now + $0 }
        return call
    }

    init(request: FetchRequest, resultType: ResultType, explain: Bool = false, timeLimit: Duration? = nil) {
        self.request = request
        self.resultType = resultType
        self.explain = explain
        self.timeLimit = timeLimit
    }

    static let parameters = ["entity", "predicate", "arguments", "sort", "limit", "offset", "includeSubentities", "resultType", "explain", "stream", Params.after]

    /// The call `value` gives; its predicate's format parsed through `predicates` (the
    /// server's, which keeps the formats it has seen), against `model`.
    static func parse(_ value: JSONValue, model: ObjectModel, predicates: PredicateCache) throws(RPCError) -> FetchCall {
        let params = try Params(value, allowed: parameters)
        let entityName = try params.string("entity")
        guard let entity = model.entity(named: entityName) else {
            throw .invalidParams(params.path("entity"), "unknown entity '\(RPCError.capped(entityName))' (entities: \(model.entities.map(\.name).joined(separator: ", ")))")
        }
        var request = FetchRequest(entityName: entity.name)
        var arguments: [PredicateValue] = []
        for (index, argument) in (try params.optionalArray("arguments") ?? []).enumerated() {
            arguments.append(try WireValues.argument(argument, model: model, path: "params.arguments[\(index)]"))
        }
        if let format = try params.optionalString("predicate") {
            do {
                request.predicate = try predicates.predicate(format: format, arguments: arguments)
            } catch {
                throw .invalidParams(params.path("predicate"), error.description, position: error.offset)
            }
        } else if !arguments.isEmpty {
            throw .invalidParams(params.path("arguments"), "arguments were given without a predicate")
        }
        for (index, element) in (try params.optionalArray("sort") ?? []).enumerated() {
            let sort = try Params(element, path: "params.sort[\(index)]", allowed: ["key", "ascending", "caseInsensitive"])
            let key = try sort.string("key")
            try checkKeyPath(key, from: entity, path: sort.path("key"))
            request.sortDescriptors.append(SortDescriptor(key, ascending: try sort.optionalBool("ascending") ?? true,
                                                          caseInsensitive: try sort.optionalBool("caseInsensitive") ?? false))
        }
        request.fetchLimit = try params.optionalInteger("limit", minimum: 0) ?? 0
        request.fetchOffset = try params.optionalInteger("offset", minimum: 0) ?? 0
        request.includesSubentities = try params.optionalBool("includeSubentities") ?? true
        let typeName = try params.optionalString("resultType") ?? "objects"
        guard let resultType = ResultType(rawValue: typeName) else {
            throw .invalidParams(params.path("resultType"), "must be \"objects\", \"ids\" or \"count\", not \"\(RPCError.capped(typeName))\"")
        }
        var call = FetchCall(request: request, resultType: resultType, explain: try params.optionalBool("explain") ?? false, timeLimit: nil)
        call.after = try params.after()
        call.stream = try params.optionalBool("stream") ?? false
        return call
    }

    /// The call limited to the objects the user may read: `rule` AND-ed into the predicate,
    /// so that sort, offset and limit apply to readable objects only.
    mutating func restrict(to rule: GraphCore.Predicate) {
        request.predicate = request.predicate.map { .and([rule, $0]) } ?? rule
    }

    /// A sort key must lead through to-one relationships to an attribute.
    private static func checkKeyPath(_ keyPath: String, from entity: EntityDescription, path: String) throws(RPCError) {
        var current = entity
        let keys = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (index, key) in keys.enumerated() {
            guard let property = current.property(named: key) else {
                throw .invalidParams(path, "entity '\(current.name)' has no property '\(RPCError.capped(key))'")
            }
            let isLast = index == keys.count - 1
            switch property {
            case .attribute:
                if !isLast { throw .invalidParams(path, "'\(key)' is an attribute of '\(current.name)': a key path cannot go on from it") }
            case .relationship(let relationship):
                guard !relationship.isToMany, !isLast, let destination = entity.model?.entity(named: relationship.destination) else {
                    throw .invalidParams(path, "cannot sort by relationship '\(key)' of '\(current.name)': sort by one of its destination's attributes ('\(key).<attribute>')")
                }
                current = destination
            }
        }
    }
}
