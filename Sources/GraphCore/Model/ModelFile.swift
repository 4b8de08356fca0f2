import Foundation

/// The shape of a model file, as `docs/MODEL.md` defines it.
struct ModelFile: Codable {
    var entities: [Entity]
    var configurations: [String: [String]]?
    var fetchRequests: [FetchRequest]?
    var userInfo: [String: String]?

    init(_ model: ObjectModel) {
        entities = model.entities.map(Entity.init)
        configurations = model.configurations.isEmpty ? nil : model.configurations
        fetchRequests = model.fetchRequestTemplates.isEmpty ? nil
            : model.fetchRequestTemplates.values.sorted { $0.name < $1.name }.map(FetchRequest.init)
        userInfo = model.userInfo.nilIfEmpty
    }

    /// The model this file describes; `path` names it in errors.
    func model(path: String) throws(ModelError) -> ObjectModel {
        var described: [EntityDescription] = []
        for (index, entity) in entities.enumerated() {
            described.append(try entity.description(path: path, place: "entities[\(index)]"))
        }
        var templates: [FetchRequestTemplate] = []
        for (index, request) in (fetchRequests ?? []).enumerated() {
            do {
                templates.append(try FetchRequestTemplate(name: request.name, entityName: request.entity,
                                                          predicateFormat: request.predicate, fetchLimit: request.fetchLimit))
            } catch {
                throw .invalidFile(path: path, reason: "fetchRequests[\(index)].predicate: \(error)")
            }
        }
        return try ObjectModel(entities: described, configurations: configurations ?? [:],
                               fetchRequestTemplates: templates, userInfo: userInfo ?? [:])
    }

    struct FetchRequest: Codable {
        var name: String
        var entity: String
        var predicate: String?
        var fetchLimit: Int?

        init(_ template: FetchRequestTemplate) {
            name = template.name
            entity = template.entityName
            predicate = template.predicateFormat
            fetchLimit = template.fetchLimit
        }
    }

    struct Index: Codable {
        var name: String
        var elements: [Element]

        struct Element: Codable {
            var property: String?
            var expression: String?
            var type: String?
            var order: String?
            var caseInsensitive: Bool?
            var diacriticInsensitive: Bool?
        }

        init(_ index: FetchIndexDescription) {
            name = index.name
            elements = index.elements.map { element in
                var result = Element()
                switch element.target {
                case .property(let property): result.property = property
                case .expression(let expression): result.expression = expression
                }
                result.type = element.kind.rawValue
                result.order = element.ascending ? "ascending" : "descending"
                result.caseInsensitive = element.caseInsensitive ? true : nil
                result.diacriticInsensitive = element.diacriticInsensitive ? true : nil
                return result
            }
        }

        func description(path: String, place: String) throws(ModelError) -> FetchIndexDescription {
            var parsed: [FetchIndexDescription.Element] = []
            for (index, element) in elements.enumerated() {
                let here = "\(place).elements[\(index)]"
                let target: FetchIndexDescription.Element.Target
                switch (element.property, element.expression) {
                case (let property?, nil): target = .property(property)
                case (nil, let expression?): target = .expression(expression)
                default: throw .invalidFile(path: path, reason: "\(here): give either 'property' or 'expression'")
                }
                guard let kind = FetchIndexDescription.Element.Kind(rawValue: element.type ?? "binary") else {
                    throw .invalidFile(path: path, reason: "\(here).type: unknown index type '\(element.type ?? "")' (known: binary, rTree)")
                }
                guard ["ascending", "descending"].contains(element.order ?? "ascending") else {
                    throw .invalidFile(path: path, reason: "\(here).order: '\(element.order ?? "")' is not ascending or descending")
                }
                parsed.append(.init(target, kind: kind, ascending: element.order != "descending",
                                    caseInsensitive: element.caseInsensitive ?? false, diacriticInsensitive: element.diacriticInsensitive ?? false))
            }
            return FetchIndexDescription(name: name, elements: parsed)
        }
    }

    struct Entity: Codable {
        var name: String
        var parent: String?
        var abstract: Bool?
        var attributes: [Attribute]?
        var relationships: [Relationship]?
        var renamingIdentifier: String?
        var uniquenessConstraints: [[String]]?
        var fetchIndexes: [Index]?
        var versionHashModifier: String?
        var userInfo: [String: String]?

        init(_ entity: EntityDescription) {
            uniquenessConstraints = entity.uniquenessConstraints.isEmpty ? nil : entity.uniquenessConstraints
            fetchIndexes = entity.fetchIndexes.isEmpty ? nil : entity.fetchIndexes.map(Index.init)
            versionHashModifier = entity.versionHashModifier
            userInfo = entity.userInfo.nilIfEmpty
            name = entity.name
            parent = entity.parentName
            abstract = entity.isAbstract
            attributes = entity.ownAttributes.map(Attribute.init)
            relationships = entity.ownRelationships.map(Relationship.init)
            renamingIdentifier = entity.renamingIdentifier
        }

        /// The entity this part of the file describes; `path` and `place` name it in errors.
        func description(path: String, place: String) throws(ModelError) -> EntityDescription {
            var parsedAttributes: [AttributeDescription] = []
            for attribute in attributes ?? [] {
                guard let type = AttributeType(rawValue: attribute.type) else {
                    throw .unknownType(entity: name, property: attribute.name, type: attribute.type)
                }
                var defaultValue: Value?
                if let raw = attribute.default {
                    guard let value = raw.value(as: type) else {
                        throw .invalidDefault(entity: name, attribute: attribute.name, type: type, reason: "got \(raw)")
                    }
                    defaultValue = value
                }
                var parsed = AttributeDescription(attribute.name, type, isOptional: attribute.optional ?? false,
                                                  defaultValue: defaultValue, renamingIdentifier: attribute.renamingIdentifier)
                try attribute.addExtras(to: &parsed, entity: name)
                parsedAttributes.append(parsed)
            }
            var parsedRelationships: [RelationshipDescription] = []
            for (index, relationship) in (relationships ?? []).enumerated() {
                var rule = DeleteRule.nullify
                if let raw = relationship.deleteRule {
                    guard let parsed = DeleteRule(rawValue: raw) else {
                        let known = DeleteRule.allCases.map(\.rawValue).joined(separator: ", ")
                        throw .invalidFile(path: path, reason: "\(place).relationships[\(index)].deleteRule: unknown delete rule "
                                               + "'\(raw)' in \(name).\(relationship.name) (known: \(known))")
                    }
                    rule = parsed
                }
                parsedRelationships.append(RelationshipDescription(
                    relationship.name, destination: relationship.destination, inverse: relationship.inverse,
                    toMany: relationship.toMany ?? false, ordered: relationship.ordered ?? false, deleteRule: rule,
                    isOptional: relationship.optional ?? true, minCount: relationship.minCount, maxCount: relationship.maxCount,
                    renamingIdentifier: relationship.renamingIdentifier))
                parsedRelationships[parsedRelationships.count - 1].versionHashModifier = relationship.versionHashModifier
                parsedRelationships[parsedRelationships.count - 1].userInfo = relationship.userInfo ?? [:]
            }
            var indexes: [FetchIndexDescription] = []
            for (index, fetchIndex) in (fetchIndexes ?? []).enumerated() {
                indexes.append(try fetchIndex.description(path: path, place: "\(place).fetchIndexes[\(index)]"))
            }
            return EntityDescription(name, parent: parent, isAbstract: abstract ?? false,
                                     attributes: parsedAttributes, relationships: parsedRelationships,
                                     renamingIdentifier: renamingIdentifier, uniquenessConstraints: uniquenessConstraints ?? [],
                                     fetchIndexes: indexes, versionHashModifier: versionHashModifier, userInfo: userInfo ?? [:])
        }
    }

    struct Attribute: Codable {
        var name: String
        var type: String
        var optional: Bool?
        var `default`: JSONScalar?
        var renamingIdentifier: String?
        var transient: Bool?
        var minValue: JSONScalar?
        var maxValue: JSONScalar?
        var regularExpression: String?
        var valueTransformerName: String?
        var customClassName: String?
        var derivation: String?
        var versionHashModifier: String?
        var userInfo: [String: String]?

        init(_ attribute: AttributeDescription) {
            transient = attribute.isTransient ? true : nil
            minValue = attribute.minValue.map(JSONScalar.init)
            maxValue = attribute.maxValue.map(JSONScalar.init)
            regularExpression = attribute.regularExpression
            valueTransformerName = attribute.valueTransformerName
            customClassName = attribute.customClassName
            derivation = attribute.derivationExpression
            versionHashModifier = attribute.versionHashModifier
            userInfo = attribute.userInfo.nilIfEmpty
            name = attribute.name
            type = attribute.type.rawValue
            optional = attribute.isOptional
            // A nil default is written as no default: `"default": null` reads back as none.
            `default` = attribute.defaultValue.flatMap { $0.isNull ? nil : JSONScalar($0) }
            renamingIdentifier = attribute.renamingIdentifier
        }
    }

    struct Relationship: Codable {
        var versionHashModifier: String?
        var userInfo: [String: String]?
        var name: String
        var destination: String
        var inverse: String?
        var toMany: Bool?
        var ordered: Bool?
        var deleteRule: String?
        var optional: Bool?
        var minCount: Int?
        var maxCount: Int?
        var renamingIdentifier: String?

        init(_ relationship: RelationshipDescription) {
            name = relationship.name
            destination = relationship.destination
            inverse = relationship.inverse
            toMany = relationship.isToMany
            ordered = relationship.isToMany ? relationship.isOrdered : nil
            deleteRule = relationship.deleteRule.rawValue
            optional = relationship.isOptional
            minCount = relationship.minCount
            maxCount = relationship.maxCount
            renamingIdentifier = relationship.renamingIdentifier
            versionHashModifier = relationship.versionHashModifier
            userInfo = relationship.userInfo.nilIfEmpty
        }

        enum CodingKeys: String, CodingKey {
            case name, destination, inverse, toMany, ordered, deleteRule, optional, minCount, maxCount, renamingIdentifier
            case versionHashModifier, userInfo
        }

        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            destination = try container.decode(String.self, forKey: .destination)
            inverse = try container.decodeIfPresent(String.self, forKey: .inverse)
            toMany = try container.decodeIfPresent(Bool.self, forKey: .toMany)
            ordered = try container.decodeIfPresent(Bool.self, forKey: .ordered)
            deleteRule = try container.decodeIfPresent(String.self, forKey: .deleteRule)
            optional = try container.decodeIfPresent(Bool.self, forKey: .optional)
            minCount = try Self.count(.minCount, in: container)
            maxCount = try Self.count(.maxCount, in: container)
            renamingIdentifier = try container.decodeIfPresent(String.self, forKey: .renamingIdentifier)
            versionHashModifier = try container.decodeIfPresent(String.self, forKey: .versionHashModifier)
            userInfo = try container.decodeIfPresent([String: String].self, forKey: .userInfo)
        }

        /// A count, read as a number first: Foundation reports a fraction where an `Int` is
        /// expected as invalid JSON without saying where.
        private static func count(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> Int? {
            guard let number = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
            guard let count = Int(exactly: number) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container,
                                                       debugDescription: "expected a whole number, got \(number)")
            }
            return count
        }
    }
}

/// A default value as JSON has it: the attribute's type says how to read it.
enum JSONScalar: Codable, CustomStringConvertible {
    case null, bool(Bool), int(Int64), double(Double), string(String)

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let b = try? container.decode(Bool.self) { self = .bool(b) }
        else if let i = try? container.decode(Int64.self) { self = .int(i) }
        else if let d = try? container.decode(Double.self) { self = .double(d) }
        else if let s = try? container.decode(String.self) { self = .string(s) }
        else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a default must be a number, string, bool or null")
        }
    }

    init(_ value: Value) {
        if let text = value.textForm { self = .string(text); return }
        switch value {
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .bool(let b): self = .bool(b)
        case .string(let s): self = .string(s)
        default: self = .null
        }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .int(let i): try container.encode(i)
        case .double(let d): try container.encode(d)
        case .string(let s): try container.encode(s)
        }
    }

    func value(as type: AttributeType) -> Value? {
        switch self {
        case .null: return .null
        case .bool(let b): return type == .bool ? .bool(b) : nil
        case .int(let i): return Value.int(i).converted(to: type)
        case .double(let d): return type == .double || type == .float ? Value.double(d).converted(to: type) : nil
        case .string(let s): return Value.parse(text: s, as: type)
        }
    }

    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return String(b)
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return "\"\(s)\""
        }
    }
}

extension ModelFile.Attribute {
    /// Sets the keys beyond name, type, optional and default on `attribute`.
    func addExtras(to attribute: inout AttributeDescription, entity: String) throws(ModelError) {
        attribute.isTransient = transient ?? false
        let boundType: AttributeType = (attribute.type == .string || attribute.type == .binary) ? .int64 : attribute.type
        for (key, raw) in [("minValue", minValue), ("maxValue", maxValue)] {
            guard let raw else { continue }
            guard let value = raw.value(as: boundType), !value.isNull else {
                throw .invalidRule(entity: entity, attribute: name, reason: "\(key) \(raw) is not a "
                                   + (boundType == attribute.type ? "\(attribute.type)" : "length (a whole number)"))
            }
            if key == "minValue" { attribute.minValue = value } else { attribute.maxValue = value }
        }
        attribute.regularExpression = regularExpression
        attribute.valueTransformerName = valueTransformerName
        attribute.customClassName = customClassName
        attribute.derivationExpression = derivation
        attribute.versionHashModifier = versionHashModifier
        attribute.userInfo = userInfo ?? [:]
    }
}

extension Dictionary {
    /// Nil for an empty dictionary, so that a model file leaves the key out.
    var nilIfEmpty: Self? { isEmpty ? nil : self }
}
