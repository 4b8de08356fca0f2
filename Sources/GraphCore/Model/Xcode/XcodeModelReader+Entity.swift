import Foundation

/// Entities, their relationships, uniqueness constraints and indexes.
extension XcodeModelReader {
    /// The entity an `<entity>` element describes, nil (with an error) when it has no name.
    mutating func entity(from element: XMLTreeElement) -> Draft? {
        guard let name = element.attributes["name"], !name.isEmpty else {
            error(element.line, nil, "an <entity> without a name")
            return nil
        }
        checkAttributes(of: element, subject: name, known: [
            "name", "representedClassName", "parentEntity", "isAbstract", "syncable", "codeGenerationType",
            "versionHashModifier", "renamingIdentifier", "elementID",
        ])
        var draft = Draft(name: name, line: element.line)
        draft.parent = element.attributes["parentEntity"]
        draft.isAbstract = flag(element, "isAbstract", subject: name) ?? false
        draft.versionHashModifier = element.attributes["versionHashModifier"]
        draft.renamingIdentifier = renamingIdentifier(of: element, subject: name)
        var propertyLines: [String: Int] = [:]
        func claim(_ property: String, _ line: Int, _ reader: inout XcodeModelReader) -> Bool {
            if let first = propertyLines[property] {
                reader.error(line, "\(name).\(property)", "property '\(property)' is defined twice in entity '\(name)' (first on line \(first))")
                return false
            }
            propertyLines[property] = line
            return true
        }
        var compoundIndexCount = 0
        for child in element.children {
            switch child.name {
            case "attribute":
                if let attribute = attribute(from: child, entity: name), claim(attribute.name, child.line, &self) {
                    draft.attributes.append(attribute)
                }
            case "relationship":
                if let relationship = relationship(from: child, entity: name), claim(relationship.name, child.line, &self) {
                    draft.relationships.append(relationship)
                    draft.relationshipLines[relationship.name] = child.line
                }
            case "fetchedProperty":
                warn(child.line, "\(name).\(child.attributes["name"] ?? "?")",
                     "fetched properties are not supported; left out (fetch with the request's predicate instead)")
            case "userInfo":
                draft.userInfo = entries(of: child, subject: name)
            case "uniquenessConstraints":
                for constraint in child.children {
                    guard constraint.name == "uniquenessConstraint" else {
                        warn(constraint.line, name, "<\(constraint.name)> in <uniquenessConstraints> is not known; left out")
                        continue
                    }
                    let members = constraint.children.compactMap { $0.name == "constraint" ? $0.attributes["value"] : nil }
                    draft.uniquenessConstraints.append(members)
                    draft.constraintLines.append(constraint.line)
                }
            case "fetchIndex":
                if let index = fetchIndex(from: child, entity: name) {
                    draft.fetchIndexes.append(index)
                    draft.indexLines.append(child.line)
                }
            case "compoundIndexes":
                // Xcode before 9 wrote compound indexes; they are fetch indexes by another name.
                for compound in child.children where compound.name == "compoundIndex" {
                    compoundIndexCount += 1
                    let members = compound.children.compactMap { $0.name == "index" ? $0.attributes["value"] : nil }
                    draft.fetchIndexes.append(FetchIndexDescription(
                        name: "compoundIndex\(compoundIndexCount)", elements: members.map { .init(.property($0)) }))
                    draft.indexLines.append(compound.line)
                }
            default:
                warn(child.line, name, "element <\(child.name)> is not known to the importer; left out")
            }
        }
        return draft
    }

    /// A `<relationship>`; nil (with a note) when it cannot be carried.
    mutating func relationship(from element: XMLTreeElement, entity: String) -> RelationshipDescription? {
        guard let name = element.attributes["name"], !name.isEmpty else {
            error(element.line, entity, "a <relationship> without a name")
            return nil
        }
        let subject = "\(entity).\(name)"
        checkAttributes(of: element, subject: subject, known: [
            "name", "optional", "toMany", "ordered", "minCount", "maxCount", "deletionRule", "destinationEntity",
            "inverseName", "inverseEntity", "syncable", "transient", "versionHashModifier", "renamingIdentifier",
            "elementID", "spotlightIndexingEnabled", "indexed", "storedInTruthFile",
        ])
        guard let destination = element.attributes["destinationEntity"], !destination.isEmpty else {
            error(element.line, subject, "the relationship has no destinationEntity")
            return nil
        }
        if flag(element, "transient", subject: subject) == true {
            warn(element.line, subject, "transient relationships are not supported; left out")
            return nil
        }
        let toMany = flag(element, "toMany", subject: subject) ?? false
        var rule = DeleteRule.nullify
        switch element.attributes["deletionRule"] ?? "Nullify" {
        case "Nullify": rule = .nullify
        case "Cascade": rule = .cascade
        case "Deny": rule = .deny
        case "No Action": rule = .noAction
        case let other:
            error(element.line, subject, "unknown deletionRule \"\(other)\" (known: Nullify, Cascade, Deny, No Action)")
        }
        var relationship = RelationshipDescription(
            name, destination: destination, inverse: element.attributes["inverseName"], toMany: toMany,
            ordered: toMany && (flag(element, "ordered", subject: subject) ?? false), deleteRule: rule,
            isOptional: flag(element, "optional", subject: subject) ?? false,
            renamingIdentifier: renamingIdentifier(of: element, subject: subject))
        if toMany {
            relationship.minCount = count(element, "minCount", subject: subject)
            relationship.maxCount = count(element, "maxCount", subject: subject)
            if let minimum = relationship.minCount, let maximum = relationship.maxCount, minimum > maximum {
                error(element.line, subject, "minCount \(minimum) is greater than maxCount \(maximum)")
            }
        } else if flag(element, "ordered", subject: subject) == true {
            warn(element.line, subject, "ordered=YES on a to-one relationship means nothing; left out")
        }
        relationship.versionHashModifier = element.attributes["versionHashModifier"]
        for child in element.children {
            if child.name == "userInfo" {
                relationship.userInfo = entries(of: child, subject: subject)
            } else {
                warn(child.line, subject, "element <\(child.name)> is not known to the importer; left out")
            }
        }
        return relationship
    }

    /// A `minCount`/`maxCount`: a whole number, 0 or more; Xcode's 0 for maxCount means no maximum.
    private mutating func count(_ element: XMLTreeElement, _ name: String, subject: String) -> Int? {
        guard let text = element.attributes[name] else { return nil }
        guard let value = Int(text), value >= 0 else {
            error(element.line, subject, "\(name)=\"\(text)\" is not a whole number, 0 or more")
            return nil
        }
        if name == "maxCount" && value == 0 { return nil }
        if name == "minCount" && value == 0 { return nil }
        return value
    }

    /// A `<fetchIndex>` with its `<fetchIndexElement>`s.
    private mutating func fetchIndex(from element: XMLTreeElement, entity: String) -> FetchIndexDescription? {
        guard let name = element.attributes["name"], !name.isEmpty else {
            warn(element.line, entity, "a <fetchIndex> without a name; left out")
            return nil
        }
        let subject = "\(entity) index \(name)"
        var elements: [FetchIndexDescription.Element] = []
        for child in element.children {
            guard child.name == "fetchIndexElement" else {
                warn(child.line, subject, "element <\(child.name)> is not known to the importer; left out")
                continue
            }
            checkAttributes(of: child, subject: subject, known: ["property", "expression", "expressionType", "type", "order"])
            let target: FetchIndexDescription.Element.Target
            if let property = child.attributes["property"] {
                target = .property(property)
            } else if let expression = child.attributes["expression"] {
                target = .expression(expression)
            } else {
                warn(child.line, subject, "a <fetchIndexElement> with neither property nor expression; left out")
                continue
            }
            var kind = FetchIndexDescription.Element.Kind.binary
            switch child.attributes["type"] ?? "Binary" {
            case "Binary": kind = .binary
            case "RTree": kind = .rTree
            case let other: warn(child.line, subject, "index type \"\(other)\" is not known; kept as Binary")
            }
            let order = child.attributes["order"] ?? "ascending"
            if order != "ascending" && order != "descending" {
                warn(child.line, subject, "order \"\(order)\" is not known; kept as ascending")
            }
            elements.append(.init(target, kind: kind, ascending: order != "descending"))
        }
        guard !elements.isEmpty else {
            warn(element.line, subject, "the index has no elements; left out")
            return nil
        }
        return FetchIndexDescription(name: name, elements: elements)
    }

    // MARK: - Across entities

    /// Checks parents, destinations and inverses against the other entities, with the lines
    /// of the elements at fault, and keeps only constraints and indexes on stored properties.
    mutating func resolveReferences(in drafts: inout [Draft]) {
        var byName: [String: Int] = [:]
        for (index, draft) in drafts.enumerated() { byName[draft.name] = index }
        func ancestry(_ name: String) -> [Draft] {
            var chain: [Draft] = []
            var current = byName[name].map { drafts[$0] }
            while let draft = current, chain.count <= drafts.count {
                chain.append(draft)
                current = draft.parent.flatMap { byName[$0] }.map { drafts[$0] }
            }
            return chain
        }
        for index in drafts.indices {
            let draft = drafts[index]
            if let parent = draft.parent, byName[parent] == nil {
                error(draft.line, draft.name, "parentEntity '\(parent)' is not an entity of the model")
            }
            for (position, relationship) in draft.relationships.enumerated() {
                let line = draft.relationshipLines[relationship.name] ?? draft.line
                let subject = "\(draft.name).\(relationship.name)"
                guard byName[relationship.destination] != nil else {
                    error(line, subject, "destinationEntity '\(relationship.destination)' is not an entity of the model")
                    continue
                }
                guard let inverseName = relationship.inverse else {
                    warn(line, subject, "the relationship has no inverse: the other side is not kept in step (Xcode warns about this too)")
                    continue
                }
                let inverse = ancestry(relationship.destination).lazy.compactMap { $0.relationships.first { $0.name == inverseName } }.first
                guard let inverse else {
                    error(line, subject, "inverseName '\(inverseName)' is not a relationship of \(relationship.destination)")
                    continue
                }
                let ownerNames = Set(ancestry(draft.name).map(\.name))
                if inverse.inverse != relationship.name || !ownerNames.contains(inverse.destination) {
                    warn(line, subject, "inverse '\(relationship.destination).\(inverseName)' does not point back to it; "
                         + "kept without an inverse")
                    drafts[index].relationships[position].inverse = nil
                }
            }
        }
        for index in drafts.indices {
            let chain = ancestry(drafts[index].name)
            let stored = Set(chain.flatMap { $0.attributes.filter { !$0.isTransient }.map(\.name) + $0.relationships.map(\.name) })
            let name = drafts[index].name
            var constraints: [[String]] = []
            for (position, constraint) in drafts[index].uniquenessConstraints.enumerated() {
                let line = drafts[index].constraintLines[position]
                let unknown = constraint.filter { !stored.contains($0) }
                if constraint.isEmpty || !unknown.isEmpty {
                    warn(line, name, "a uniqueness constraint on " + (constraint.isEmpty ? "no property" :
                            "'\(unknown.joined(separator: "', '"))', not a stored property of the entity,") + " left out")
                    continue
                }
                constraints.append(constraint)
            }
            drafts[index].uniquenessConstraints = constraints
            var indexes: [FetchIndexDescription] = []
            for (position, fetchIndex) in drafts[index].fetchIndexes.enumerated() {
                let line = drafts[index].indexLines[position]
                let unknown = fetchIndex.elements.compactMap { element -> String? in
                    if case .property(let property) = element.target, !stored.contains(property) { return property }
                    return nil
                }
                if !unknown.isEmpty {
                    warn(line, name, "index '\(fetchIndex.name)' on '\(unknown.joined(separator: "', '"))', not a stored property of the entity, left out")
                    continue
                }
                let toMany = Set(chain.flatMap { $0.relationships.filter(\.isToMany).map(\.name) })
                let manyElements = fetchIndex.elements.compactMap { element -> String? in
                    if case .property(let property) = element.target, toMany.contains(property) { return property }
                    return nil
                }
                if !manyElements.isEmpty {
                    warn(line, name, "index '\(fetchIndex.name)' on '\(manyElements.joined(separator: "', '"))', a to-many relationship "
                         + "(an index element is an attribute or a to-one relationship), left out")
                    continue
                }
                if indexes.contains(where: { $0.name == fetchIndex.name }) {
                    warn(line, name, "a second index named '\(fetchIndex.name)'; left out")
                    continue
                }
                indexes.append(fetchIndex)
            }
            drafts[index].fetchIndexes = indexes
        }
    }
}
