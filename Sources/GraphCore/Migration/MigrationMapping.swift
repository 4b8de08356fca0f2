/// The lightweight mapping from one model version to the next, inferred as Core Data's
/// lightweight migration does: from the two models alone, matching entities and properties
/// by name or by their ``EntityDescription/renamingIdentifier``.
///
/// ```swift
/// let mapping = try MigrationMapping.infer(from: version1, to: version2)
/// let nodes = try mapping.migrate(oldNodes)
/// ```
///
/// Inferred: entities and properties added or removed, renames, optional → required when the
/// attribute has a default (nil values get it), required → optional, numeric widening
/// (`int16` → `int32` → `int64`; `float` → `double`; integers → `double` or `float` where every
/// value converts exactly, checked on the data for `int64` → `double` and `int32` → `float`;
/// integers → `decimal`), to-one ↔ to-many (to-many → to-one only when no object holds more
/// than one, checked on the data), a change of parent entity, a delete rule, min/max count or
/// default changed. Refused: any other change of type (narrowing included, as Core Data does),
/// an attribute added or made required without a default, an attribute that becomes a
/// relationship, a relationship leading to an unrelated entity.
public struct MigrationMapping: Sendable {
    /// The model the objects are in.
    public let source: ObjectModel
    /// The model they are migrated to.
    public let destination: ObjectModel
    /// What to call the source model in messages.
    public let sourceLabel: String
    /// What to call the destination model in messages.
    public let destinationLabel: String
    /// One mapping per destination entity, in the destination model's order.
    public let entities: [EntityMapping]
    /// The source entities the destination model no longer has (their objects are dropped).
    public let removedEntities: [String]

    /// A label for a model in messages: `model <first 12 digits of its version hash>`.
    public static func label(of model: ObjectModel) -> String {
        "model \(model.versionHash.prefix(12))"
    }

    /// Infers the mapping from `source` to `destination`.
    ///
    /// - Throws: ``MigrationError/notLightweight(from:to:refusals:)`` naming every entity and
    ///   property whose change is not lightweight, and why.
    public static func infer(from source: ObjectModel, to destination: ObjectModel,
                             sourceLabel: String? = nil, destinationLabel: String? = nil) throws(MigrationError) -> MigrationMapping {
        let from = sourceLabel ?? label(of: source)
        let to = destinationLabel ?? label(of: destination)
        var inference = MappingInference(source: source, destination: destination)
        let entities = inference.inferEntities()
        if !inference.refusals.isEmpty {
            throw .notLightweight(from: from, to: to, refusals: inference.refusals)
        }
        let mapped = Set(entities.compactMap(\.sourceName))
        let removed = source.entities.map(\.name).filter { !mapped.contains($0) }
        return MigrationMapping(source: source, destination: destination, sourceLabel: from, destinationLabel: to,
                                entities: entities, removedEntities: removed)
    }

    /// The mapping of a destination entity.
    public func entity(named name: String) -> EntityMapping? { entities.first { $0.name == name } }

    /// Whether the mapping changes nothing that a store holds or checks.
    public var isIdentity: Bool { removedEntities.isEmpty && !entities.contains(where: \.hasChanges) }
}
