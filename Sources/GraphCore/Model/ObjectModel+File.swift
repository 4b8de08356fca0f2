import Foundation

/// Reading and writing the JSON model file described in `docs/MODEL.md`.
extension ObjectModel {
    /// Loads a model from a JSON model file.
    ///
    /// - Throws: ``ModelError/invalidFile(path:reason:)`` when the file cannot be read or is
    ///   not shaped as `docs/MODEL.md` says (the reason names the place, e.g.
    ///   `entities[2].attributes[0]`), or the ``ModelError`` of the model it describes.
    public convenience init(contentsOf url: URL) throws(ModelError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .invalidFile(path: url.path, reason: "cannot be read (\(error.localizedDescription))")
        }
        try self.init(json: data, path: url.path)
    }

    /// Loads a model from the bytes of a JSON model file; `path` names it in errors.
    public convenience init(json data: Data, path: String = "(model)") throws(ModelError) {
        let file: ModelFile
        do {
            file = try JSONDecoder().decode(ModelFile.self, from: data)
        } catch let error as DecodingError {
            throw .invalidFile(path: path, reason: Self.describe(error))
        } catch {
            throw .invalidFile(path: path, reason: "\(error)")
        }
        var entities: [EntityDescription] = []
        for (index, entity) in file.entities.enumerated() {
            entities.append(try entity.description(path: path, place: "entities[\(index)]"))
        }
        try self.init(entities: entities)
    }

    /// The model as a JSON model file (`docs/MODEL.md`), with sorted keys.
    public func jsonRepresentation() -> Data {
        let file = ModelFile(entities: entities.map(ModelFile.Entity.init))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(file)) ?? Data("{\"entities\":[]}".utf8)
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let parts = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
            let joined = parts.joined()
            return joined.isEmpty ? "the top level" : String(joined.drop { $0 == "." })
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context)): expected \(type == String.self ? "a string" : "\(type)")"
        case .valueNotFound(_, let context):
            return "\(path(context)): a value is missing"
        case .keyNotFound(let key, let context):
            return "\(path(context)): missing key '\(key.stringValue)'"
        case .dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
            return "\(path(context)): \(context.debugDescription)\(underlying)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// The shape of a model file, as `docs/MODEL.md` defines it.
private struct ModelFile: Codable {
    var entities: [Entity]

    struct Entity: Codable {
        var name: String
        var parent: String?
        var abstract: Bool?
        var attributes: [Attribute]?
        var relationships: [Relationship]?
        var renamingIdentifier: String?

        init(_ entity: EntityDescription) {
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
                parsedAttributes.append(AttributeDescription(attribute.name, type, isOptional: attribute.optional ?? false,
                                                             defaultValue: defaultValue,
                                                             renamingIdentifier: attribute.renamingIdentifier))
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
            }
            return EntityDescription(name, parent: parent, isAbstract: abstract ?? false,
                                     attributes: parsedAttributes, relationships: parsedRelationships,
                                     renamingIdentifier: renamingIdentifier)
        }
    }

    struct Attribute: Codable {
        var name: String
        var type: String
        var optional: Bool?
        var `default`: JSONScalar?
        var renamingIdentifier: String?

        init(_ attribute: AttributeDescription) {
            name = attribute.name
            type = attribute.type.rawValue
            optional = attribute.isOptional
            // A nil default is written as no default: `"default": null` reads back as none.
            `default` = attribute.defaultValue.flatMap { $0.isNull ? nil : JSONScalar($0) }
            renamingIdentifier = attribute.renamingIdentifier
        }
    }

    struct Relationship: Codable {
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
        }

        enum CodingKeys: String, CodingKey {
            case name, destination, inverse, toMany, ordered, deleteRule, optional, minCount, maxCount, renamingIdentifier
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
private enum JSONScalar: Codable, CustomStringConvertible {
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
