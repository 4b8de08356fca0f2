import DocumentProtocol
import GraphCore
import JSONCore

/// The parameters of `subscribe`, checked against the model before the feed sees them.
struct SubscribeCall: Sendable {
    var filter: FeedFilter
    /// Resume after this sequence number (nil: from the latest commit on).
    let since: Int64?

    static func parse(_ value: JSONValue, model: ObjectModel) throws(RPCError) -> SubscribeCall {
        let params = try Params(value, allowed: [ChangeMembers.entity, ChangeMembers.predicate, ChangeMembers.arguments,
                                                 ChangeMembers.since, ChangeMembers.includeValues])
        let filter = try FeedFilter.parse(params, model: model, predicates: true)
        return SubscribeCall(filter: filter, since: try params.optionalSequence(ChangeMembers.since))
    }
}

/// The parameters of `changes`.
struct ChangesCall: Sendable {
    /// The default number of records: 100.
    static let defaultLimit = 100
    /// The most records one answer holds: 1000.
    static let maximumLimit = 1000

    var filter: FeedFilter
    let since: Int64
    let limit: Int

    static func parse(_ value: JSONValue, model: ObjectModel) throws(RPCError) -> ChangesCall {
        let params = try Params(value, allowed: [ChangeMembers.since, ChangeMembers.limit, ChangeMembers.entity,
                                                 ChangeMembers.includeValues])
        guard let since = try params.optionalSequence(ChangeMembers.since) else {
            throw .invalidParams(params.path(ChangeMembers.since), "is required (a sequence number: 0, or the seq of an earlier answer)")
        }
        let limit = try params.optionalInteger(ChangeMembers.limit, minimum: 1) ?? defaultLimit
        guard limit <= maximumLimit else {
            throw .invalidParams(params.path(ChangeMembers.limit), "must be at most \(maximumLimit), not \(limit)")
        }
        return ChangesCall(filter: try FeedFilter.parse(params, model: model, predicates: false), since: since, limit: limit)
    }
}

extension FeedFilter {
    /// Reads `entity`, `predicate` and `arguments` (when `predicates`), and `includeValues`.
    static func parse(_ params: Params, model: ObjectModel, predicates: Bool) throws(RPCError) -> FeedFilter {
        var entity: EntityDescription?
        if let name = try params.optionalString(ChangeMembers.entity) {
            guard let found = model.entity(named: name) else {
                throw .invalidParams(params.path(ChangeMembers.entity),
                                     "unknown entity '\(RPCError.capped(name))' (entities: \(model.entities.map(\.name).joined(separator: ", ")))")
            }
            entity = found
        }
        var predicate: GraphCore.Predicate?
        if predicates {
            var arguments: [PredicateValue] = []
            for (index, argument) in (try params.optionalArray(ChangeMembers.arguments) ?? []).enumerated() {
                arguments.append(try WireValues.argument(argument, model: model, path: "params.arguments[\(index)]"))
            }
            if let format = try params.optionalString(ChangeMembers.predicate) {
                guard let entity else {
                    throw .invalidParams(params.path(ChangeMembers.predicate), "a predicate needs an entity: give \"entity\" too")
                }
                do {
                    predicate = try GraphCore.Predicate(format: format, arguments: arguments, model: model)
                    var request = FetchRequest(entityName: entity.name)
                    request.predicate = predicate
                    // Checks the key paths against the entity now, not at the first commit.
                    _ = try SnapshotFetch(request, model: model, resolve: { _ in nil })
                } catch let error as PredicateError {
                    var answer = RPCError.invalidParams(params.path(ChangeMembers.predicate), error.description, position: error.offset)
                    answer.predicateSubject = PredicatePosition.subject(of: error)
                    throw answer
                } catch {
                    throw .invalidParams(params.path(ChangeMembers.predicate), "\(error)")
                }
            } else if !arguments.isEmpty {
                throw .invalidParams(params.path(ChangeMembers.arguments), "arguments were given without a predicate")
            }
        }
        return FeedFilter(entity: entity, predicate: predicate,
                          includeValues: try params.optionalBool(ChangeMembers.includeValues) ?? true)
    }
}

extension Params {
    /// A sequence number: an integer from 0.
    func optionalSequence(_ key: String) throws(RPCError) -> Int64? {
        guard let value = self[key], value != .null else { return nil }
        guard case .number(let text) = value, let number = Int64(text), number >= 0 else {
            throw .invalidParams(path(key), "must be a sequence number (an integer of at least 0), not \(Params.describe(value))")
        }
        return number
    }
}
