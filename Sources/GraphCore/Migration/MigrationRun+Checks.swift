extension MigrationRun {
    /// Fills each relationship that is new in the destination from its inverse, when the
    /// inverse comes from the source: a new `Song.album` from the existing `Album.songs`.
    mutating func deriveInverses(_ nodes: inout [ObjectSnapshot]) {
        let mappings = Dictionary(mapping.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func isNew(_ property: String, in entity: EntityDescription) -> Bool {
            guard let entityMapping = mappings[entity.name], entityMapping.sourceName != nil else { return false }
            return entityMapping.properties.first { $0.name == property }?.sourceName == nil
        }
        func isMapped(_ property: String, in entity: EntityDescription) -> Bool {
            guard let entityMapping = mappings[entity.name], entityMapping.sourceName != nil else { return false }
            return entityMapping.properties.first { $0.name == property }?.sourceName != nil
        }
        var byReference: [ReferenceObject: Int] = [:]  // the position of each object in `nodes`
        byReference.reserveCapacity(nodes.count)
        for (position, node) in nodes.enumerated() { byReference[node.objectID.referenceObject] = position }
        // Which (entity, relationship) pairs to fill: new here, mapped on the other side.
        var work: [(holder: EntityDescription, relationship: RelationshipDescription, other: EntityDescription)] = []
        for entity in mapping.destination.entities {
            for relationship in entity.ownRelationships {
                guard let inverse = relationship.inverse,
                      let other = mapping.destination.entity(named: relationship.destination),
                      isNew(relationship.name, in: entity) || entity.subentityNames.contains(where: { name in
                          mapping.destination.entity(named: name).map { isNew(relationship.name, in: $0) } ?? false }),
                      isMapped(inverse, in: other)
                else { continue }
                work.append((entity, relationship, other))
            }
        }
        guard !work.isEmpty else { return }
        for (holder, relationship, other) in work {
            guard let inverse = relationship.inverse else { continue }
            // Only the inverse's own objects: another entity may have a relationship of the
            // same name, whose objects are not this relationship's to hold.
            for node in nodes where node.objectID.entity.isKind(of: other) {
                // `node` is this object as it was when the walk reached it: a fill below changes
                // only relationships of `holder`, never the inverse read here.
                guard let index = node.objectID.entity.index(ofProperty: inverse),
                      node.objectID.entity.relationshipIndices.contains(index) else { continue }
                let targets: [ObjectID]
                switch node.values[index] {
                case .object(let target): targets = [target]
                case .objects(let list): targets = list
                default: continue
                }
                for target in targets {
                    guard let holderPosition = byReference[target.referenceObject], case let holderNode = nodes[holderPosition],
                          holderNode.objectID.entity.isKind(of: holder),
                          isNew(relationship.name, in: holderNode.objectID.entity),
                          let slot = holderNode.objectID.entity.index(ofProperty: relationship.name) else { continue }
                    if relationship.isToMany {
                        if case .objects(var list) = holderNode.values[slot] {
                            if !list.contains(node.objectID) { list.append(node.objectID) }
                            nodes[holderPosition].values[slot] = .objects(list)
                        } else {
                            nodes[holderPosition].values[slot] = .objects([node.objectID])
                        }
                    } else if case .object(let existing) = holderNode.values[slot], existing != node.objectID {
                        refusals.add(entity: holderNode.objectID.entityName, property: relationship.name,
                                     object: holderNode.objectID.referenceObject,
                                     reason: "its inverse \"\(inverse)\" lists it in more than one object, so the new to-one cannot be filled")
                    } else {
                        nodes[holderPosition].values[slot] = .object(node.objectID)
                    }
                }
            }
            if relationship.isToMany && !relationship.isOrdered {
                for position in nodes.indices where nodes[position].objectID.entity.isKind(of: holder) {
                    guard let slot = nodes[position].objectID.entity.index(ofProperty: relationship.name),
                          case .objects(let list) = nodes[position].values[slot], list.count > 1 else { continue }
                    nodes[position].values[slot] = .objects(list.sorted { Self.order($0.referenceObject, $1.referenceObject) })
                }
            }
        }
    }

    private static func order(_ left: ReferenceObject, _ right: ReferenceObject) -> Bool {
        switch (left, right) {
        case (.int(let a), .int(let b)): return a < b
        case (.int, .string): return true
        case (.string, .int): return false
        case (.string(let a), .string(let b)): return a < b
        }
    }

    /// Refuses objects left without a value that the destination requires: an attribute made
    /// required (without a default for nil, which inference refuses already), a to-one made
    /// required or added as required.
    mutating func checkRequired(_ nodes: [ObjectSnapshot]) {
        let mappings = Dictionary(mapping.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var checked: [String: [Int]] = [:]
        for node in nodes {
            let entity = node.objectID.entity
            let indexes = checked[entity.name] ?? entity.properties.indices.filter { index in
                switch entity.properties[index] {
                case .attribute(let attribute): return !attribute.isOptional
                case .relationship(let relationship):
                    guard !relationship.isToMany, !relationship.isOptional else { return false }
                    let changes = mappings[entity.name]?.properties.first { $0.name == relationship.name }
                    return changes?.sourceName == nil || changes?.changes.contains(.relationshipMadeRequired) == true
                        || changes?.changes.contains(.toManyToOne) == true
                }
            }
            checked[entity.name] = indexes
            for index in indexes where node.values[index].isNull {
                refusals.add(entity: entity.name, property: entity.properties[index].name, object: node.objectID.referenceObject,
                             reason: "a value is required and the migration leaves none")
            }
        }
    }
}

extension MigrationRun {
    /// Refuses the objects whose sides of a relationship disagree, for every relationship whose
    /// inverse is new or changed while both sides keep their old values (two relationships
    /// that were independent and are now declared inverses): a store that keeps both sides must
    /// have them agree, or it would not load.
    mutating func checkInverses(_ nodes: [ObjectSnapshot]) {
        var pairs: [(entity: EntityDescription, relationship: RelationshipDescription)] = []
        for entityMapping in mapping.entities {
            guard let sourceName = entityMapping.sourceName, let entity = mapping.destination.entity(named: entityMapping.name),
                  let sourceEntity = mapping.source.entity(named: sourceName) else { continue }
            for relationship in entity.ownRelationships {
                guard let inverse = relationship.inverse,
                      let propertyMapping = entityMapping.properties.first(where: { $0.name == relationship.name }),
                      let oldName = propertyMapping.sourceName,
                      let destinationEntity = mapping.destination.entity(named: relationship.destination),
                      let inverseMapping = mapping.entity(named: destinationEntity.name)?.properties.first(where: { $0.name == inverse }),
                      let oldInverseName = inverseMapping.sourceName
                else { continue }
                // Already inverses in the source (perhaps under other names): the store kept them in agreement.
                if sourceEntity.property(named: oldName)?.relationship?.inverse == oldInverseName { continue }
                pairs.append((entity, relationship))
            }
        }
        guard !pairs.isEmpty else { return }
        for (entity, relationship) in pairs {
            guard let inverse = relationship.inverse,
                  let destinationEntity = mapping.destination.entity(named: relationship.destination) else { continue }
            // Every (holder, held) edge of the inverse side, as (held, holder) to compare.
            var backEdges = Set<[ReferenceObject]>()
            for node in nodes where node.objectID.entity.isKind(of: destinationEntity) {
                guard let back = node.objectID.entity.index(ofProperty: inverse),
                      node.objectID.entity.relationshipIndices.contains(back) else { continue }
                for target in Self.targets(node.values[back]) { backEdges.insert([target.referenceObject, node.objectID.referenceObject]) }
            }
            for node in nodes where node.objectID.entity.isKind(of: entity) {
                guard let index = node.objectID.entity.index(ofProperty: relationship.name) else { continue }
                for target in Self.targets(node.values[index])
                where !backEdges.contains([node.objectID.referenceObject, target.referenceObject]) {
                    refusals.add(entity: node.objectID.entityName, property: relationship.name, object: node.objectID.referenceObject,
                                 reason: "holds \(target.entityName) \(target.referenceObject), whose \"\(inverse)\" "
                                     + "does not hold it back: the two sides, now inverses, disagree")
                }
            }
        }
    }

    static func targets(_ value: Value) -> [ObjectID] {
        switch value {
        case .object(let target): return [target]
        case .objects(let list): return list
        default: return []
        }
    }
}
