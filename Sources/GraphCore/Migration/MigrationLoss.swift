/// Data a migration step would drop: the objects of a removed entity, the values of a removed
/// attribute, the links of a removed relationship whose inverse is not kept either. A
/// migration refuses every loss that is not accepted by name (``MigrationLossAcceptance``).
public struct MigrationLoss: Equatable, Sendable, CustomStringConvertible {
    /// What is lost.
    public enum Kind: Equatable, Sendable {
        /// A removed entity's objects.
        case objects
        /// A removed attribute's non-nil values.
        case values
        /// A removed relationship's links (neither side is kept).
        case links
    }

    /// The entity's name in the source model.
    public var entity: String
    /// The removed property's name in the source model; nil for a removed entity.
    public var property: String?
    /// What is lost.
    public var kind: Kind
    /// How many objects, values or links.
    public var count: Int

    /// The name that accepts this loss: `Entity` for a removed entity, `Entity.property` for a
    /// removed property (source model names).
    public var name: String { property.map { "\(entity).\($0)" } ?? entity }

    /// `entity Tag: removed with its 3 objects`, `entity Song, attribute "lyrics": removed with 5 values`.
    public var description: String {
        switch kind {
        case .objects:
            return "entity \(entity): removed with its \(count) \(count == 1 ? "object" : "objects")"
        case .values:
            return "entity \(entity), attribute \"\(property ?? "")\": removed with \(count) \(count == 1 ? "value" : "values")"
        case .links:
            return "entity \(entity), relationship \"\(property ?? "")\": removed with \(count) \(count == 1 ? "link" : "links")"
                + " (its inverse is not kept either)"
        }
    }
}

/// Which losses of data a migration may make (``MigrationLoss``): none, the ones named, or all.
public struct MigrationLossAcceptance: Equatable, Sendable {
    /// The accepted names (`Entity` or `Entity.property`, source model names).
    public var names: Set<String>
    /// Whether every loss is accepted.
    public var acceptsAll: Bool

    /// Accepts the losses named `Entity` (a removed entity) or `Entity.property` (a removed
    /// property); the name `all` accepts every loss.
    public init(names: Set<String>) {
        self.acceptsAll = names.contains("all")
        self.names = names.subtracting(["all"])
    }

    /// No loss is accepted.
    public static let none = MigrationLossAcceptance(names: [])
    /// Every loss is accepted.
    public static let all = MigrationLossAcceptance(names: ["all"])

    /// Whether `loss` is accepted.
    public func accepts(_ loss: MigrationLoss) -> Bool {
        acceptsAll || names.contains(loss.name)
    }
}

extension MigrationRun {
    /// Counts what the step drops of `nodes` (source objects): objects of removed entities,
    /// non-nil values of removed attributes, links of removed relationships whose inverse the
    /// destination does not keep (when it keeps it, the links survive on the other side).
    func losses(of nodes: [ObjectSnapshot]) -> [MigrationLoss] {
        var counts: [String: MigrationLoss] = [:]
        var order: [String] = []
        func add(_ entity: String, _ property: String?, _ kind: MigrationLoss.Kind, _ count: Int) {
            let loss = MigrationLoss(entity: entity, property: property, kind: kind, count: count)
            if counts[loss.name] == nil { order.append(loss.name); counts[loss.name] = loss } else { counts[loss.name]?.count += count }
        }
        let removedEntities = Set(mapping.removedEntities)
        var removedByEntity: [String: [(index: Int, property: PropertyDescription)]] = [:]
        for node in nodes {
            let source = node.objectID.entity
            if removedEntities.contains(source.name) {
                add(source.name, nil, .objects, 1)
                continue
            }
            let removed = removedByEntity[source.name] ?? removedProperties(of: source)
            removedByEntity[source.name] = removed
            for (index, property) in removed where node.values.indices.contains(index) {
                let value = node.values[index]
                let owner = source.owner(ofPropertyNamed: property.name).name
                switch property {
                case .attribute:
                    if !value.isNull { add(owner, property.name, .values, 1) }
                case .relationship:
                    let count = Self.targets(value).count
                    if count > 0 { add(owner, property.name, .links, count) }
                }
            }
        }
        return order.compactMap { counts[$0] }
    }

    /// The properties of a source entity that its destination entity drops, with their index,
    /// leaving out relationships whose inverse is kept (their links survive there).
    private func removedProperties(of source: EntityDescription) -> [(index: Int, property: PropertyDescription)] {
        guard let entityMapping = mapping.entities.first(where: { $0.sourceName == source.name }) else { return [] }
        var result: [(index: Int, property: PropertyDescription)] = []
        for name in entityMapping.removedProperties {
            guard let index = source.index(ofProperty: name) else { continue }
            let property = source.properties[index]
            if case .relationship(let relationship) = property, let inverse = relationship.inverse,
               let destinationMapping = mapping.entities.first(where: { $0.sourceName == relationship.destination }),
               destinationMapping.properties.contains(where: { $0.sourceName == inverse }) {
                continue
            }
            result.append((index, property))
        }
        return result
    }
}
