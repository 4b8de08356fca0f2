import Foundation

extension MigrationMapping {
    /// The step an Xcode mapping model describes from `source` to `destination`, in place of
    /// the inferred one (`docs/MODEL.md`, "Mapping models").
    ///
    /// Each entity mapping takes every object of its source entity (a renamed source entity
    /// included) to its destination entity; each property mapping's value expression gives the
    /// destination value: `$source.key` carries the source property's values (a relationship's
    /// objects through the entity mappings), other expressions are computed on each source
    /// object (``MappingExpression``); a destination property without one gets its default.
    /// Source entities and properties no mapping reads are removed, and their losses checked.
    ///
    /// - Throws: ``MigrationError/mappingModelRefused(mappingModel:from:to:refusals:)`` naming,
    ///   for each entity mapping and property mapping that cannot run here, what it is and why:
    ///   a custom migration policy class, a custom entity mapping or source expression,
    ///   `FUNCTION($source, "…")`, an expression that does not parse (with its text), an entity
    ///   or property the two models do not have.
    public static func fromMappingModel(_ mappingModel: XcodeMappingModel, source: ObjectModel, destination: ObjectModel,
                                        sourceLabel: String? = nil, destinationLabel: String? = nil) throws(MigrationError) -> MigrationMapping {
        let from = sourceLabel ?? label(of: source)
        let to = destinationLabel ?? label(of: destination)
        var builder = MappingModelSteps(model: mappingModel, source: source, destination: destination)
        let entities = builder.entities()
        if !builder.refusals.isEmpty {
            throw .mappingModelRefused(mappingModel: mappingModel.name, from: from, to: to, refusals: builder.refusals)
        }
        let mapped = Set(entities.compactMap(\.sourceName))
        let removed = source.entities.map(\.name).filter { !mapped.contains($0) }
        return MigrationMapping(source: source, destination: destination, sourceLabel: from, destinationLabel: to,
                                entities: entities, removedEntities: removed)
    }
}

/// Turns a mapping model's entity mappings into ``EntityMapping``s, collecting refusals.
struct MappingModelSteps {
    let model: XcodeMappingModel
    let source: ObjectModel
    let destination: ObjectModel
    var refusals: [MigrationRefusal] = []

    init(model: XcodeMappingModel, source: ObjectModel, destination: ObjectModel) {
        self.model = model
        self.source = source
        self.destination = destination
    }

    /// One mapping per destination entity, in the destination model's order; an entity no
    /// entity mapping fills gets no objects.
    mutating func entities() -> [EntityMapping] {
        var byDestination: [String: EntityMapping] = [:]
        var mappedSources: [String: String] = [:]
        let names = Set(model.entityMappings.map(\.name))
        for entity in model.entityMappings {
            let place = entity.destinationName ?? entity.sourceName ?? entity.name
            func refuse(_ reason: String) {
                refusals.append(MigrationRefusal(entity: place, property: nil, reason: "entity mapping \(entity.name): \(reason)"))
            }
            if let policy = entity.policyClassName, policy != "NSEntityMigrationPolicy" {
                refuse("names the custom migration policy class \(policy), whose code only the app can run")
                continue
            }
            if entity.typeName == "Custom" {
                refuse("is a custom entity mapping, which only a migration policy class of the app can fill")
                continue
            }
            if let custom = entity.customSource {
                refuse("takes its objects by \(custom), not every object of its source entity; only the default source is run here")
                continue
            }
            let sourceEntity = entity.sourceName.flatMap { source.entity(named: $0) }
            if let name = entity.sourceName, sourceEntity == nil {
                refuse("its source entity \(name) is not in the source model: the mapping model was made for other versions")
                continue
            }
            guard let destinationName = entity.destinationName else { continue }  // a removed entity
            guard let destinationEntity = destination.entity(named: destinationName) else {
                refuse("its destination entity \(destinationName) is not in the destination model: the mapping model was made for other versions")
                continue
            }
            if byDestination[destinationName] != nil {
                refuse("is a second entity mapping to \(destinationName); objects of several entity mappings in one entity are not run here")
                continue
            }
            if let sourceName = entity.sourceName, let other = mappedSources[sourceName] {
                refuse("maps \(sourceName) again (\(other) maps it too); one source entity to several entity mappings is not run here")
                continue
            }
            if let sourceName = entity.sourceName { mappedSources[sourceName] = entity.name }
            byDestination[destinationName] = properties(of: entity, from: sourceEntity, to: destinationEntity, entityMappings: names)
        }
        return destination.entities.map { entity in
            byDestination[entity.name] ?? EntityMapping(
                name: entity.name, sourceName: nil,
                properties: entity.properties.map {
                    PropertyMapping(name: $0.name, sourceName: nil, changes: [.notMapped(initial: MappingInference.initialValue(of: $0))])
                },
                removedProperties: [], changes: ["not in the mapping model \(model.name): no objects"])
        }
    }

    /// The property mappings of one entity mapping.
    private mutating func properties(of entity: XcodeMappingModel.Entity, from sourceEntity: EntityDescription?,
                                     to destinationEntity: EntityDescription, entityMappings: Set<String>) -> EntityMapping {
        let written = entity.attributes + entity.relationships
        for property in written where destinationEntity.index(ofProperty: property.name) == nil {
            refusals.append(MigrationRefusal(entity: destinationEntity.name, property: property.name,
                                             reason: "entity mapping \(entity.name): maps a property the destination entity does not have "
                                                + "(xcmapping.xml line \(property.line))"))
        }
        var used = Set<String>()
        let properties = destinationEntity.properties.map { property -> PropertyMapping in
            let initial = MappingInference.initialValue(of: property)
            let unmapped = PropertyMapping(name: property.name, sourceName: nil, changes: [.notMapped(initial: initial)])
            guard let sourceEntity, let mapping = written.first(where: { $0.name == property.name }) else { return unmapped }
            let text: String
            switch mapping.value {
            case .none:
                return unmapped
            case .generated:
                guard sourceEntity.index(ofProperty: property.name) != nil else { return unmapped }
                text = "$source.\(property.name)"
            case .relationshipKeyPath(let keyPath, let mappingName):
                if let mappingName, !entityMappings.contains(mappingName) {
                    refuse(entity, property, mapping, "names the entity mapping \(mappingName), which the mapping model does not have")
                    return unmapped
                }
                text = "$source.\(keyPath)"
            case .archivedExpression:
                refuse(entity, property, mapping, "its value expression is kept only as an archived NSExpression (valueexpressiondata), "
                           + "which is not read here; write it as text in Xcode's mapping model editor")
                return unmapped
            case .expression(let expression):
                text = expression
            }
            switch MappingExpression.meaning(of: text, for: property, source: sourceEntity, in: source, entityMappings: entityMappings) {
            case .failure(let refusal):
                refuse(entity, property, mapping, "the value expression \(text) \(refusal.reason)")
                return unmapped
            case .success(.sourceProperty(let key)):
                used.insert(key)
                return PropertyMapping(name: property.name, sourceName: key, changes: key == property.name ? [] : [.renamed(from: key)])
            case .success(.computed(let expression)):
                for path in MappingExpression.paths(in: expression.expression) {
                    used.insert(String(path.prefix { $0 != "." }))
                }
                return PropertyMapping(name: property.name, sourceName: nil, changes: [.computed(expression: text)], expression: expression)
            }
        }
        var changes: [String] = []
        if let sourceName = entity.sourceName, sourceName != destinationEntity.name {
            changes.append("renamed from \(sourceName) (mapping model \(model.name))")
        }
        if sourceEntity == nil { changes.append("added") }
        let removed = sourceEntity?.properties.map(\.name).filter { !used.contains($0) } ?? []
        return EntityMapping(name: destinationEntity.name, sourceName: sourceEntity?.name, properties: properties,
                             removedProperties: removed, changes: changes)
    }

    private mutating func refuse(_ entity: XcodeMappingModel.Entity, _ property: PropertyDescription,
                                 _ mapping: XcodeMappingModel.Property, _ reason: String) {
        refusals.append(MigrationRefusal(entity: entity.destinationName ?? entity.name, property: property.name,
                                         reason: "entity mapping \(entity.name), xcmapping.xml line \(mapping.line): \(reason)"))
    }
}
