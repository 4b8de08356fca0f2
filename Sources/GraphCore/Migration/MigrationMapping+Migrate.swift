import Foundation

extension MigrationMapping {
    /// Migrates the objects of a store from ``source`` to ``destination``: each object keeps
    /// its reference (and so its ID's last part), its store and its version; objects of
    /// removed entities are dropped, and so are references to them.
    ///
    /// - Parameters:
    ///   - nodes: The store's objects, in the source model.
    /// - Returns: The objects in the destination model.
    /// - Throws: ``MigrationError/dataDoesNotFit(from:to:refusals:)`` naming, for each entity and
    ///   property, the objects that do not fit (a to-many holding several objects that becomes
    ///   to-one, a value a wider type cannot hold exactly, a required value left nil, objects of an
    ///   entity that became abstract).
    ///   - acceptingLosses: The data the step may drop (``MigrationLoss``); by default none:
    ///     a step that would drop objects of a removed entity, values of a removed attribute or
    ///     links of a removed relationship throws ``MigrationError/wouldLoseData(from:to:losses:)``
    ///     naming each loss that is not accepted.
    public func migrate(_ nodes: [ObjectSnapshot], acceptingLosses: MigrationLossAcceptance = .none) throws(MigrationError) -> [ObjectSnapshot] {
        try migrateCounting(nodes, acceptingLosses: acceptingLosses).nodes
    }

    /// ``migrate(_:acceptingLosses:)``, with the numbers of objects by source entity and of nil values given a default.
    func migrateCounting(_ nodes: [ObjectSnapshot],
                         acceptingLosses: MigrationLossAcceptance) throws(MigrationError) -> (nodes: [ObjectSnapshot], counts: MigrationCounts) {
        var run = MigrationRun(mapping: self)
        let losses = run.losses(of: nodes)
        let refused = losses.filter { !acceptingLosses.accepts($0) }
        if !refused.isEmpty {
            throw .wouldLoseData(from: sourceLabel, to: destinationLabel, losses: refused)
        }
        run.counts.losses = losses
        let migrated = run.migrate(nodes)
        if !run.refusals.isEmpty {
            throw .dataDoesNotFit(from: sourceLabel, to: destinationLabel, refusals: run.refusals.refusals)
        }
        return (migrated, run.counts)
    }
}

/// One run of a mapping over a store's objects.
struct MigrationRun {
    let mapping: MigrationMapping
    var refusals = ObjectRefusals()
    var counts = MigrationCounts()
    /// Source entity name → the destination entity its objects go to.
    private let destinationBySource: [String: EntityDescription]
    /// Destination entity name → its mapping.
    private let mappingByName: [String: EntityMapping]
    /// Every surviving object's new ID, by reference (references are unique in a store).
    private var newIDs: [ReferenceObject: ObjectID] = [:]
    /// The source objects by reference, when a mapping model's expression follows a relationship.
    private var sourceByReference: [ReferenceObject: ObjectSnapshot] = [:]

    init(mapping: MigrationMapping) {
        self.mapping = mapping
        var destinations: [String: EntityDescription] = [:]
        var mappings: [String: EntityMapping] = [:]
        for entity in mapping.entities {
            mappings[entity.name] = entity
            if let source = entity.sourceName, let target = mapping.destination.entity(named: entity.name) {
                destinations[source] = target
            }
        }
        destinationBySource = destinations
        mappingByName = mappings
    }

    mutating func migrate(_ nodes: [ObjectSnapshot]) -> [ObjectSnapshot] {
        for node in nodes {
            guard let entity = destinationBySource[node.objectID.entityName] else { continue }
            newIDs[node.objectID.referenceObject] =
                ObjectID(entity: entity, storeIdentifier: node.objectID.storeIdentifier ?? "", reference: node.objectID.referenceObject)
        }
        if mapping.entities.contains(where: { $0.properties.contains { $0.expression?.followsRelationships == true } }) {
            for node in nodes { sourceByReference[node.objectID.referenceObject] = node }
        }
        var plans: [String: [Slot]] = [:]
        var migrated: [ObjectSnapshot] = []
        migrated.reserveCapacity(newIDs.count)
        for node in nodes {
            counts.objectsBySourceEntity[node.objectID.entityName, default: 0] += 1
            guard let id = newIDs[node.objectID.referenceObject] else { continue }
            let entity = id.entity
            if entity.isAbstract {
                refusals.add(entity: entity.name, property: nil, object: id.referenceObject,
                             reason: "the entity became abstract and cannot keep objects of its own")
                continue
            }
            let slots = plans[node.objectID.entityName] ?? makeSlots(from: node.objectID.entity, to: entity)
            plans[node.objectID.entityName] = slots
            let values = slots.map { slot in value(for: slot, of: node, id: id) }
            migrated.append(ObjectSnapshot(objectID: id, version: node.version, values: values))
        }
        deriveInverses(&migrated)
        checkInverses(migrated)
        checkRequired(migrated)
        return migrated
    }

    // MARK: - Slots

    /// How one destination property gets its value.
    struct Slot {
        let property: PropertyDescription
        let sourceIndex: Int?
        let sourceType: AttributeType?
        let initial: Value
        let defaultForNil: Value?
        /// A mapping model's expression that computes the value.
        let expression: MappingExpression?
    }

    private func makeSlots(from source: EntityDescription, to entity: EntityDescription) -> [Slot] {
        let entityMapping = mappingByName[entity.name]
        return entity.properties.map { property in
            let propertyMapping = entityMapping?.properties.first { $0.name == property.name }
            let sourceIndex = propertyMapping?.sourceName.flatMap { source.index(ofProperty: $0) }
            let sourceType = sourceIndex.flatMap { source.properties[$0].attribute?.type }
            var defaultForNil: Value?
            for change in propertyMapping?.changes ?? [] {
                if case .madeRequired(let value) = change { defaultForNil = value }
            }
            return Slot(property: property, sourceIndex: sourceIndex, sourceType: sourceType,
                        initial: MappingInference.initialValue(of: property), defaultForNil: defaultForNil,
                        expression: propertyMapping?.expression)
        }
    }

    private mutating func value(for slot: Slot, of node: ObjectSnapshot, id: ObjectID) -> Value {
        if let expression = slot.expression, case .attribute(let attribute) = slot.property {
            do {
                return try expression.value(on: node, as: attribute.type, lookup: { sourceByReference[$0] })
            } catch {
                refusals.add(entity: id.entityName, property: attribute.name, object: id.referenceObject, reason: error.reason)
                return slot.initial
            }
        }
        guard let index = slot.sourceIndex, node.values.indices.contains(index) else { return slot.initial }
        let old = node.values[index]
        switch slot.property {
        case .attribute(let attribute):
            if old.isNull {
                guard let value = slot.defaultForNil else { return .null }
                counts.defaultsApplied[MigrationCounts.key(id.entityName, attribute.name), default: 0] += 1
                return value
            }
            guard let type = slot.sourceType, type != attribute.type else { return old }
            if let converted = Self.widen(old, to: attribute.type) { return converted }
            refusals.add(entity: id.entityName, property: attribute.name, object: id.referenceObject,
                         reason: "the value does not convert exactly from \(type) to \(attribute.type)")
            return old  // refused already; not reported again as a missing value
        case .relationship(let relationship):
            let targets: [ObjectID]
            switch old {
            case .object(let target): targets = [target]
            case .objects(let list): targets = list
            default: targets = []
            }
            let allowed = mapping.destination.entity(named: relationship.destination)
            var mapped: [ObjectID] = []
            mapped.reserveCapacity(targets.count)
            for target in targets {
                guard let newID = newIDs[target.referenceObject] else { continue }  // its entity was removed
                if let allowed, !newID.entity.isKind(of: allowed) {
                    refusals.add(entity: id.entityName, property: relationship.name, object: id.referenceObject,
                                 reason: "holds \(newID.entityName) \(newID.referenceObject), which is not \(Self.article(allowed.name)) \(allowed.name)")
                    continue
                }
                mapped.append(newID)
            }
            if relationship.isToMany { return .objects(mapped) }
            if mapped.count > 1 {
                refusals.add(entity: id.entityName, property: relationship.name, object: id.referenceObject,
                             reason: "holds more than one object, so the relationship cannot become to-one")
            }
            return mapped.first.map { .object($0) } ?? .null
        }
    }

    /// The value in the wider type, or nil when it does not convert exactly.
    static func widen(_ value: Value, to type: AttributeType) -> Value? {
        switch (value, type) {
        case (.int(let i), .int16), (.int(let i), .int32), (.int(let i), .int64):
            return type.integerRange?.contains(i) == true ? value : nil
        case (.int(let i), .double):
            return Double(exactly: i).map { .double($0) }
        case (.int(let i), .float):
            return Float(exactly: i).map { .double(Double($0)) }
        case (.int(let i), .decimal):
            return .decimal(Decimal(i))
        case (.double, .double):
            return value
        default:
            return nil
        }
    }

    private static func article(_ noun: String) -> String {
        guard let first = noun.unicodeScalars.first else { return "a" }
        return "AEIOUaeiou".unicodeScalars.contains(first) ? "an" : "a"
    }
}

/// What a migration step did, for its report.
struct MigrationCounts: Sendable {
    /// Objects by source entity name (dropped ones included).
    var objectsBySourceEntity: [String: Int] = [:]
    /// Nil values given a default, by `Entity.property` in the destination.
    var defaultsApplied: [String: Int] = [:]
    /// The data dropped (accepted losses).
    var losses: [MigrationLoss] = []

    static func key(_ entity: String, _ property: String) -> String { "\(entity).\(property)" }
}
