/// Infers the entity and property mappings between two models, gathering every refusal.
struct MappingInference {
    let source: ObjectModel
    let destination: ObjectModel
    private(set) var refusals: [MigrationRefusal] = []
    /// Destination entity name → source entity.
    private var sourceOf: [String: EntityDescription] = [:]
    /// Source entity name → destination entity.
    private var destinationOf: [String: EntityDescription] = [:]

    init(source: ObjectModel, destination: ObjectModel) {
        self.source = source
        self.destination = destination
    }

    mutating func inferEntities() -> [EntityMapping] {
        for entity in destination.entities {
            guard let match = Self.match(entity.name, entity.renamingIdentifier, in: source.entities,
                                         name: \.name, identifier: \.renamingIdentifier) else { continue }
            if let other = destinationOf[match.name] {
                refusals.append(MigrationRefusal(
                    entity: entity.name,
                    reason: "comes from source entity \(match.name), as entity \(other.name) does: give each a renamingIdentifier of its own"))
                continue
            }
            sourceOf[entity.name] = match
            destinationOf[match.name] = entity
        }
        return destination.entities.map { inferEntity($0) }
    }

    /// The source element a destination element comes from: the one named by its renaming
    /// identifier (or its own name), else one with the same renaming identifier.
    static func match<T>(_ name: String, _ identifier: String?, in candidates: [T],
                         name nameOf: (T) -> String, identifier identifierOf: (T) -> String?) -> T? {
        if let identifier {
            if let found = candidates.first(where: { nameOf($0) == identifier }) { return found }
            if let found = candidates.first(where: { identifierOf($0) == identifier }) { return found }
        }
        return candidates.first { nameOf($0) == name }
    }

    private mutating func inferEntity(_ entity: EntityDescription) -> EntityMapping {
        guard let old = sourceOf[entity.name] else {
            let properties = entity.properties.map { property in
                PropertyMapping(name: property.name, sourceName: nil, changes: [.added(initial: Self.initialValue(of: property))])
            }
            return EntityMapping(name: entity.name, sourceName: nil, properties: properties, removedProperties: [],
                                 changes: ["added"])
        }
        var changes: [String] = []
        if old.name != entity.name { changes.append("renamed from \(old.name)") }
        if old.parentName != entity.parentName {
            changes.append("parent changed from \(old.parentName ?? "none") to \(entity.parentName ?? "none")")
        }
        if old.isAbstract != entity.isAbstract {
            changes.append(entity.isAbstract ? "becomes abstract (allowed only while it has no objects of its own)" : "no longer abstract")
        }
        var used = Set<String>()
        var properties: [PropertyMapping] = []
        for property in entity.properties {
            let match = Self.match(property.name, property.renamingIdentifier, in: old.properties,
                                   name: \.name, identifier: \.renamingIdentifier)
            if let match, used.contains(match.name) {
                refusals.append(MigrationRefusal(entity: entity.name, property: property.name,
                                                 reason: "comes from source property \"\(match.name)\", as another property does"))
                continue
            }
            if let match { used.insert(match.name) }
            properties.append(inferProperty(property, from: match, in: entity))
        }
        let removed = old.properties.map(\.name).filter { !used.contains($0) }
        return EntityMapping(name: entity.name, sourceName: old.name, properties: properties,
                             removedProperties: removed, changes: changes)
    }

    static func initialValue(of property: PropertyDescription) -> Value {
        switch property {
        case .attribute(let attribute):
            return attribute.defaultValue.flatMap { $0.converted(to: attribute.type) } ?? .null
        case .relationship(let relationship):
            return relationship.isToMany ? .objects([]) : .null
        }
    }

    private mutating func inferProperty(_ property: PropertyDescription, from old: PropertyDescription?,
                                        in entity: EntityDescription) -> PropertyMapping {
        let refuse = { (reason: String) in MigrationRefusal(entity: entity.name, property: property.name, reason: reason) }
        guard let old else {
            if case .attribute(let attribute) = property, !attribute.isOptional, attribute.defaultValue?.isNull ?? true {
                refusals.append(refuse("added as a required attribute without a default value: give it a default or make it optional"))
            }
            return PropertyMapping(name: property.name, sourceName: nil, changes: [.added(initial: Self.initialValue(of: property))])
        }
        var changes: [PropertyChange] = []
        if old.name != property.name { changes.append(.renamed(from: old.name)) }
        switch (old, property) {
        case (.attribute(let before), .attribute(let after)):
            changes += attributeChanges(before, after, refuse: refuse)
        case (.relationship(let before), .relationship(let after)):
            changes += relationshipChanges(before, after, in: entity, refuse: refuse)
        case (.attribute, .relationship):
            refusals.append(refuse("was an attribute and is now a relationship: not lightweight"))
        case (.relationship, .attribute):
            refusals.append(refuse("was a relationship and is now an attribute: not lightweight"))
        }
        return PropertyMapping(name: property.name, sourceName: old.name, changes: changes)
    }

    private mutating func attributeChanges(_ before: AttributeDescription, _ after: AttributeDescription,
                                           refuse: (String) -> MigrationRefusal) -> [PropertyChange] {
        var changes: [PropertyChange] = []
        if before.type != after.type {
            switch Self.widening(from: before.type, to: after.type) {
            case .some:  // when not always exact, each value is checked as it is migrated
                changes.append(.widened(from: before.type, to: after.type))
            case .none:
                let narrowing = Self.isNarrowing(from: before.type, to: after.type)
                refusals.append(refuse("type changed from \(before.type) to \(after.type): "
                    + (narrowing ? "narrowing is not lightweight (values might not fit); keep the wider type"
                                 : "only numeric widening is lightweight")))
            }
        }
        if before.isOptional && !after.isOptional {
            if let value = after.defaultValue.flatMap({ $0.converted(to: after.type) }), !value.isNull {
                changes.append(.madeRequired(default: value))
            } else {
                refusals.append(refuse("made required without a default value: nil values would have none; give it a default"))
            }
        } else if !before.isOptional && after.isOptional {
            changes.append(.madeOptional)
        }
        if before.defaultValue != after.defaultValue, !changes.contains(where: { if case .madeRequired = $0 { return true }; return false }) {
            changes.append(.noDataChange("default changed from \(before.defaultValue.map { "\($0)" } ?? "none") to \(after.defaultValue.map { "\($0)" } ?? "none")"))
        }
        return changes
    }

    /// Whether `from` → `to` widens: true when every value converts exactly, false when each
    /// value must be checked, nil when it is not a widening.
    static func widening(from: AttributeType, to: AttributeType) -> Bool? {
        switch (from, to) {
        case (.int16, .int32), (.int16, .int64), (.int32, .int64): return true
        case (.float, .double): return true
        case (.int16, .double), (.int32, .double), (.int16, .float): return true
        case (.int16, .decimal), (.int32, .decimal), (.int64, .decimal): return true
        case (.int64, .double), (.int32, .float), (.int64, .float): return false
        default: return nil
        }
    }

    static func isNarrowing(from: AttributeType, to: AttributeType) -> Bool {
        let numeric: [AttributeType] = [.int16, .int32, .int64, .float, .double, .decimal]
        return numeric.contains(from) && numeric.contains(to)
    }

    private mutating func relationshipChanges(_ before: RelationshipDescription, _ after: RelationshipDescription,
                                              in entity: EntityDescription,
                                              refuse: (String) -> MigrationRefusal) -> [PropertyChange] {
        var changes: [PropertyChange] = []
        if let mappedDestination = destinationOf[before.destination] {
            if mappedDestination.name != after.destination {
                if let newDestination = destination.entity(named: after.destination), mappedDestination.isKind(of: newDestination) {
                    changes.append(.destinationChanged(from: before.destination, to: after.destination))
                } else if let newDestination = destination.entity(named: after.destination), newDestination.isKind(of: mappedDestination) {
                    changes.append(.destinationChanged(from: before.destination, to: after.destination))  // objects of other kinds are checked
                } else {
                    refusals.append(refuse("destination changed from \(before.destination) to \(after.destination), "
                        + "which is neither \(mappedDestination.name) nor an entity of its hierarchy"))
                }
            }
        } else {
            refusals.append(refuse("its destination \(before.destination) is removed; remove or rename the relationship too"))
        }
        if before.isToMany != after.isToMany {
            changes.append(after.isToMany ? .toOneToMany : .toManyToOne)
        } else if before.isToMany, before.isOrdered != after.isOrdered {
            changes.append(.orderingChanged(ordered: after.isOrdered))
        }
        if !after.isToMany, before.isOptional != after.isOptional {
            changes.append(after.isOptional ? .madeOptional : .relationshipMadeRequired)
        }
        if before.inverse != after.inverse { changes.append(.inverseChanged(from: before.inverse, to: after.inverse)) }
        if before.deleteRule != after.deleteRule {
            changes.append(.noDataChange("delete rule changed from \(before.deleteRule) to \(after.deleteRule)"))
        }
        if before.minCount != after.minCount || before.maxCount != after.maxCount {
            changes.append(.noDataChange("count limits changed from \(Self.counts(before)) to \(Self.counts(after))"))
        }
        return changes
    }

    private static func counts(_ relationship: RelationshipDescription) -> String {
        "\(relationship.minCount.map(String.init) ?? "-")...\(relationship.maxCount.map(String.init) ?? "-")"
    }
}

extension PropertyDescription {
    /// The attribute's or relationship's renaming identifier.
    var renamingIdentifier: String? {
        switch self {
        case .attribute(let attribute): return attribute.renamingIdentifier
        case .relationship(let relationship): return relationship.renamingIdentifier
        }
    }
}
