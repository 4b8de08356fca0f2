import Foundation

/// A model: the entities of an object graph, resolved and validated.
///
/// Build one in code from ``EntityDescription``s, or load one from a JSON model file
/// (`docs/MODEL.md`) with ``ObjectModel/init(contentsOf:)``. A model is immutable and can be
/// shared freely.
public final class ObjectModel: Sendable, CustomStringConvertible {
    /// The entities in the order they were given.
    public let entities: [EntityDescription]
    /// The entities by name.
    public let entitiesByName: [String: EntityDescription]
    /// Each entity's ``EntityDescription/versionHash``, by entity name.
    public let entityVersionHashes: [String: String]
    /// A hash of all entities' hashes; equal for equal schemas, whatever their order.
    public let versionHash: String
    /// Named subsets of the entities (Core Data's configurations): configuration name → entity names.
    /// Kept as data: GraphCore does not assign entities to stores by configuration.
    public let configurations: [String: [String]]
    /// Named fetch requests kept with the model (Core Data's fetch request templates), by name.
    public let fetchRequestTemplates: [String: FetchRequestTemplate]
    /// Free key-value pairs for the app (Core Data's model `userInfo`).
    public let userInfo: [String: String]

    /// Validates and resolves the entities into a model.
    ///
    /// - Throws: ``ModelError`` naming the entity and property at fault: a duplicate name,
    ///   an unknown parent or destination, a cycle of parents, an inverse that does not
    ///   point back, a default of the wrong type, a bad min/max count, a bad value rule, a
    ///   uniqueness constraint or index naming an unknown property, a configuration or
    ///   template naming an unknown entity.
    /// - Parameters:
    ///   - entities: The entities.
    ///   - configurations: Configuration name → the names of its entities.
    ///   - fetchRequestTemplates: Named fetch requests.
    ///   - userInfo: Free key-value pairs.
    public init(entities: [EntityDescription], configurations: [String: [String]] = [:],
                fetchRequestTemplates: [FetchRequestTemplate] = [], userInfo: [String: String] = [:]) throws(ModelError) {
        var byName: [String: EntityDescription] = [:]
        var indexByName: [String: Int] = [:]
        for (index, entity) in entities.enumerated() {
            if entity.isResolved || entity.model != nil { throw .entityInAnotherModel(entity.name) }
            guard !entity.name.isEmpty else { throw .emptyName(entity: "") }
            guard byName[entity.name] == nil else { throw .duplicateEntity(entity.name) }
            byName[entity.name] = entity
            indexByName[entity.name] = index
        }
        try Self.resolveParents(entities, byName: byName)
        for entity in Self.parentsFirst(entities) {
            try Self.layOut(entity, indexByName: indexByName)
        }
        for entity in entities {
            try Self.resolveRelationships(of: entity, byName: byName, indexByName: indexByName)
            try Self.checkIndexes(of: entity)
        }
        var templates: [String: FetchRequestTemplate] = [:]
        for template in fetchRequestTemplates {
            guard byName[template.entityName] != nil else {
                throw .unknownEntity(owner: "fetch request '\(template.name)'", entity: template.entityName)
            }
            templates[template.name] = template
        }
        for (name, members) in configurations {
            if let unknown = members.first(where: { byName[$0] == nil }) {
                throw .unknownEntity(owner: "configuration '\(name)'", entity: unknown)
            }
        }
        var hashes: [String: String] = [:]
        for entity in entities {
            entity.versionHash = SHA256.hex(of: Self.canonicalSchema(of: entity))
            entity.rootNameHash = entity.root.name.hashValue
            hashes[entity.name] = entity.versionHash
        }
        self.entities = entities
        self.entitiesByName = byName
        self.entityVersionHashes = hashes
        self.versionHash = SHA256.hex(of: hashes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ";"))
        self.configurations = configurations
        self.fetchRequestTemplates = templates
        self.userInfo = userInfo
        for entity in entities {
            entity.model = self
            entity.isResolved = true
        }
    }

    /// The number of entities and their names, for messages.
    public var description: String {
        "model of \(entities.count) entities (\(entities.map(\.name).joined(separator: ", ")))"
    }

    /// The entity with this name.
    public func entity(named name: String) -> EntityDescription? { entitiesByName[name] }

    /// The entity with this name, or ``GraphError/unknownEntity(_:)``.
    func requireEntity(_ name: String) throws(GraphError) -> EntityDescription {
        guard let entity = entitiesByName[name] else { throw .unknownEntity(name) }
        return entity
    }

    /// The names of the entities whose hash differs from `hashes` (or is missing from either side).
    public func entitiesDiffering(from hashes: [String: String]) -> [String] {
        let names = Set(hashes.keys).union(entityVersionHashes.keys)
        return names.filter { hashes[$0] != entityVersionHashes[$0] }.sorted()
    }

    // MARK: - Resolution

    private static func resolveParents(_ entities: [EntityDescription], byName: [String: EntityDescription]) throws(ModelError) {
        for entity in entities {
            guard let parentName = entity.parentName else { continue }
            guard let parent = byName[parentName] else {
                throw .unknownParent(entity: entity.name, parent: parentName)
            }
            entity.parent = parent
        }
        for entity in entities {
            var seen = [entity.name]
            var current = entity.parent
            while let next = current {
                if next === entity {
                    // The parents hold each other strongly: undo them, or the entities leak.
                    for entity in entities { entity.parent = nil }
                    throw .parentCycle(seen + [entity.name])
                }
                if seen.contains(next.name) { break }  // a cycle further up, reported from its own members
                seen.append(next.name)
                current = next.parent
            }
        }
        for entity in entities {
            entity.subentityNames = entities.filter { $0.parent === entity }.map(\.name)
        }
    }

    /// Entities ordered so that each parent comes before its children.
    private static func parentsFirst(_ entities: [EntityDescription]) -> [EntityDescription] {
        func depth(_ entity: EntityDescription) -> Int {
            var depth = 0
            var current = entity.parent
            while let next = current { depth += 1; current = next.parent }
            return depth
        }
        return entities.enumerated()
            .sorted { (depth($0.element), $0.offset) < (depth($1.element), $1.offset) }
            .map(\.element)
    }

    private static func layOut(_ entity: EntityDescription, indexByName: [String: Int]) throws(ModelError) {
        var properties = entity.parent?.properties ?? []
        var indexes = entity.parent?.indexByName ?? [:]
        var transients = entity.parent?.transientAttributes ?? []
        var names = Set(indexes.keys).union(transients.map(\.name))
        for attribute in entity.ownAttributes where attribute.isTransient {
            guard !attribute.name.isEmpty else { throw .emptyName(entity: entity.name) }
            guard names.insert(attribute.name).inserted else {
                throw .duplicateProperty(entity: entity.name, property: attribute.name)
            }
            if let value = attribute.defaultValue { try checkDefault(value, of: attribute, in: entity) }
            transients.append(attribute)
        }
        let own: [PropertyDescription] =
            entity.ownAttributes.filter { !$0.isTransient }.map { .attribute($0) } + entity.ownRelationships.map { .relationship($0) }
        for property in own {
            guard !property.name.isEmpty else { throw .emptyName(entity: entity.name) }
            guard indexes[property.name] == nil, !transients.contains(where: { $0.name == property.name }) else {
                throw .duplicateProperty(entity: entity.name, property: property.name)
            }
            if case .attribute(let attribute) = property, let value = attribute.defaultValue {
                try checkDefault(value, of: attribute, in: entity)
            }
            if case .relationship(let relationship) = property {
                try checkCounts(relationship, in: entity)
            }
            indexes[property.name] = properties.count
            properties.append(property)
        }
        entity.properties = properties
        entity.transientAttributes = transients
        var rules: [AttributeValueRules?] = []
        for property in properties {
            guard let attribute = property.attribute else { rules.append(nil); continue }
            rules.append(try AttributeValueRules(attribute, entity: entity.name))
        }
        entity.valueRules = rules
        entity.indexByName = indexes
        entity.propertyNames = properties.map(\.name)
        entity.propertyShapes = properties.map(PropertyShape.init)
        entity.attributeSlots = properties.map { $0.attribute.map { .init(type: $0.type, isOptional: $0.isOptional) } }
        entity.initialValuesCache = entity.computeInitialValues()
        entity.relationshipIndices = properties.indices.filter { properties[$0].relationship != nil }
    }

    private static func checkDefault(_ value: Value, of attribute: AttributeDescription, in entity: EntityDescription) throws(ModelError) {
        if value.isNull {
            if attribute.isOptional { return }
            throw .invalidDefault(entity: entity.name, attribute: attribute.name, type: attribute.type,
                                  reason: "nil is not allowed for a required attribute")
        }
        guard value.converted(to: attribute.type) != nil else {
            throw .invalidDefault(entity: entity.name, attribute: attribute.name, type: attribute.type,
                                  reason: "got \(value.kindName) \(value)")
        }
    }

    private static func checkCounts(_ relationship: RelationshipDescription, in entity: EntityDescription) throws(ModelError) {
        let fail = { (reason: String) in ModelError.invalidCount(entity: entity.name, relationship: relationship.name, reason: reason) }
        if !relationship.isToMany {
            if relationship.isOrdered { throw fail("a to-one relationship cannot be ordered") }
            if relationship.minCount != nil || relationship.maxCount != nil {
                throw fail("minCount and maxCount apply to to-many relationships only")
            }
            return
        }
        if let minimum = relationship.minCount, minimum < 0 { throw fail("minCount \(minimum) is negative") }
        if let maximum = relationship.maxCount, maximum < 0 { throw fail("maxCount \(maximum) is negative") }
        if let minimum = relationship.minCount, let maximum = relationship.maxCount, minimum > maximum {
            throw fail("minCount \(minimum) is greater than maxCount \(maximum)")
        }
    }

    private static func resolveRelationships(
        of entity: EntityDescription, byName: [String: EntityDescription], indexByName: [String: Int]
    ) throws(ModelError) {
        var inverses = [Int?](repeating: nil, count: entity.properties.count)
        var destinations = [Int?](repeating: nil, count: entity.properties.count)
        for (index, property) in entity.properties.enumerated() {
            guard case .relationship(let relationship) = property else { continue }
            guard let destination = byName[relationship.destination] else {
                throw .unknownDestination(entity: entity.name, relationship: relationship.name,
                                          destination: relationship.destination)
            }
            destinations[index] = indexByName[destination.name]
            guard let inverseName = relationship.inverse else { continue }
            guard let inverseIndex = destination.indexByName[inverseName],
                  case .relationship(let inverse) = destination.properties[inverseIndex]
            else {
                throw .unknownInverse(entity: entity.name, relationship: relationship.name,
                                      inverse: inverseName, destination: destination.name)
            }
            // The inverse must lead back to this entity (or an ancestor of it) and name this relationship.
            let owner = entity.owner(ofPropertyNamed: relationship.name)
            guard inverse.inverse == relationship.name,
                  let inverseDestination = byName[inverse.destination],
                  owner.isKind(of: inverseDestination)
            else {
                throw .inverseMismatch(entity: entity.name, relationship: relationship.name, inverse: inverseName,
                                       pointsTo: "\(inverse.destination).\(inverse.inverse ?? "(no inverse)")")
            }
            inverses[index] = inverseIndex
        }
        entity.inverseIndices = inverses
        entity.destinationIndices = destinations
    }

    /// Uniqueness constraints and fetch indexes name properties the entity has (stored ones).
    private static func checkIndexes(of entity: EntityDescription) throws(ModelError) {
        for constraint in entity.uniquenessConstraints {
            guard !constraint.isEmpty else { throw .invalidIndex(entity: entity.name, reason: "a uniqueness constraint names no property") }
            for name in constraint where entity.indexByName[name] == nil {
                throw .invalidIndex(entity: entity.name, reason: "a uniqueness constraint names '\(name)', which is not a stored property of the entity")
            }
        }
        var seen = Set<String>()
        for index in entity.fetchIndexes {
            guard seen.insert(index.name).inserted else {
                throw .invalidIndex(entity: entity.name, reason: "two fetch indexes are named '\(index.name)'")
            }
            guard !index.elements.isEmpty else {
                throw .invalidIndex(entity: entity.name, reason: "fetch index '\(index.name)' has no elements")
            }
            for element in index.elements {
                if case .property(let name) = element.target, entity.indexByName[name] == nil {
                    throw .invalidIndex(entity: entity.name,
                                        reason: "fetch index '\(index.name)' names '\(name)', which is not a stored property of the entity")
                }
                if case .property(let name) = element.target, let position = entity.indexByName[name],
                   case .relationship(let relationship) = entity.properties[position], relationship.isToMany {
                    throw .invalidIndex(entity: entity.name, reason: "fetch index '\(index.name)' names '\(name)', a to-many relationship: an index element is an attribute or a to-one relationship")
                }
                if element.caseInsensitive || element.diacriticInsensitive {
                    guard case .property(let name) = element.target, let position = entity.indexByName[name],
                          case .attribute(let attribute) = entity.properties[position], attribute.type == .string else {
                        throw .invalidIndex(entity: entity.name, reason: "fetch index '\(index.name)': only a string attribute can be caseInsensitive or diacriticInsensitive")
                    }
                }
            }
        }
    }

    // MARK: - Version hashes

    /// The schema of an entity as a canonical string: properties sorted by name; default
    /// values, delete rules, counts, value rules, indexes and transient attributes left out,
    /// since they do not change what a store holds. Version hash modifiers (Core Data's) are
    /// part of it, where Core Data has them: the entity's and each stored property's.
    private static func canonicalSchema(of entity: EntityDescription) -> String {
        var parts = ["entity \(entity.name)", "parent \(entity.parentName ?? "-")", "abstract \(entity.isAbstract)"]
        if let modifier = entity.versionHashModifier { parts.append("modifier \(modifier)") }
        for property in entity.properties.sorted(by: { $0.name < $1.name }) {
            switch property {
            case .attribute(let a):
                parts.append("attribute \(a.name) \(a.type) optional=\(a.isOptional)"
                             + (a.versionHashModifier.map { " modifier=\($0)" } ?? ""))
            case .relationship(let r):
                parts.append("relationship \(r.name) -> \(r.destination) inverse=\(r.inverse ?? "-") toMany=\(r.isToMany) ordered=\(r.isOrdered)"
                             + (r.versionHashModifier.map { " modifier=\($0)" } ?? ""))
            }
        }
        return parts.joined(separator: "\n")
    }
}

extension EntityDescription {
    /// The entity (this one or an ancestor) that declares the property.
    func owner(ofPropertyNamed name: String) -> EntityDescription {
        var entity = self
        while let parent = entity.parent, parent.indexByName[name] != nil { entity = parent }
        return entity
    }
}
