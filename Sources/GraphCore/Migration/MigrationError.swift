/// Why a store cannot be migrated from one model version to the next.
///
/// Every case lists all it found, not only the first: a user fixes the model (or the data)
/// once, not once per problem.
public enum MigrationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The change between two model versions is not lightweight: each refusal names the
    /// entity, the property (when it is about one) and why.
    case notLightweight(from: String, to: String, refusals: [MigrationRefusal])
    /// The change is lightweight for some data but not for this store's: each refusal names
    /// the objects that do not fit (a to-many with several objects becoming to-one, a value
    /// that a wider type cannot hold exactly, a required value left nil).
    case dataDoesNotFit(from: String, to: String, refusals: [MigrationRefusal])
    /// The step would drop data (objects of a removed entity, values of a removed attribute,
    /// links of a removed relationship) that was not accepted by name: each loss says what and
    /// how much, and its ``MigrationLoss/name`` accepts it.
    case wouldLoseData(from: String, to: String, losses: [MigrationLoss])
    /// None of the model versions given has the store's entity version hashes.
    case noMatchingVersion(store: String, tried: Int)
    /// A mapping model for the step cannot be run here: each refusal names the entity, the
    /// property and the entity mapping, and why (a custom policy class, `FUNCTION($source, …)`,
    /// an expression that does not parse, an entity the models do not have).
    case mappingModelRefused(mappingModel: String, from: String, to: String, refusals: [MigrationRefusal])
    /// A mapping model given for the migration maps between versions that are not among those
    /// given (the names its recorded model paths end in), or not from an older to a newer one.
    case mappingModelMatchesNoVersion(mappingModel: String, source: String?, destination: String?, versions: [String])
    /// Two mapping models are for the same step: which one to run is not guessed.
    case mappingModelsConflict(first: String, second: String, source: String, destination: String)

    /// A message naming every entity and property at fault and why.
    public var description: String {
        switch self {
        case .notLightweight(let from, let to, let refusals):
            return "the change from \(from) to \(to) is not a lightweight migration:\n"
                + refusals.map { "  - \($0)" }.joined(separator: "\n")
        case .dataDoesNotFit(let from, let to, let refusals):
            return "the store's data does not fit the change from \(from) to \(to):\n"
                + refusals.map { "  - \($0)" }.joined(separator: "\n")
        case .wouldLoseData(let from, let to, let losses):
            return "the change from \(from) to \(to) would lose data; nothing is migrated unless each loss is accepted by name "
                + "(docserver migrate --accept-loss NAME, repeated; --accept-loss all accepts every loss):\n"
                + losses.map { "  - \($0) (accept with \"\($0.name)\")" }.joined(separator: "\n")
        case .noMatchingVersion(let store, let tried):
            return "\(store) was written for none of the \(tried) model versions given: "
                + "give the model the store was written with (--from-model) so that it can be migrated"
        case .mappingModelRefused(let mappingModel, let from, let to, let refusals):
            return "the mapping model \(mappingModel) for the change from \(from) to \(to) cannot be run here "
                + "(nothing is migrated; docs/MODEL.md, \"Mapping models\"):\n"
                + refusals.map { "  - \($0)" }.joined(separator: "\n")
        case .mappingModelMatchesNoVersion(let mappingModel, let source, let destination, let versions):
            return "the mapping model \(mappingModel) maps from \(source.map { "version \"\($0)\"" } ?? "no recorded model") "
                + "to \(destination.map { "version \"\($0)\"" } ?? "no recorded model"), "
                + "which is not a step between the versions given (\(versions.map { "\"\($0)\"" }.joined(separator: ", "))): "
                + "it was made for other model versions"
        case .mappingModelsConflict(let first, let second, let source, let destination):
            return "the mapping models \(first) and \(second) are both for the step from version \"\(source)\" to \"\(destination)\": "
                + "give only the one to run"
        }
    }
}

/// One reason a migration is refused: where (entity, property) and why.
public struct MigrationRefusal: Equatable, Sendable, CustomStringConvertible {
    /// The entity, by its name in the destination model (or the source's, when it is about a source entity).
    public var entity: String
    /// The property, when the refusal is about one.
    public var property: String?
    /// Why, in words a user can act on.
    public var reason: String

    /// A refusal about an entity or one of its properties.
    public init(entity: String, property: String? = nil, reason: String) {
        self.entity = entity
        self.property = property
        self.reason = reason
    }

    /// `entity E, property "p": reason`.
    public var description: String {
        let place = property.map { "entity \(entity), property \"\($0)\"" } ?? "entity \(entity)"
        return "\(place): \(reason)"
    }
}
