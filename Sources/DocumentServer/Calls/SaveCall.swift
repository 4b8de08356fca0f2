import DocumentProtocol
import GraphCore
import JSONCore

/// The parameters of `save`, checked against the model before the writer sees them:
/// entities, keys, value types, IDs and versions. What needs the store (does an object
/// exist, at which version) is checked when the save is applied.
struct SaveCall: Sendable {
    /// A relationship's target: an object of the store, or an object inserted by this save.
    enum Reference: Sendable {
        case existing(ObjectID, path: String)
        case temporary(String, path: String)

        var existingID: ObjectID? {
            if case .existing(let id, _) = self { return id }
            return nil
        }
    }

    enum Assignment: Sendable {
        case attribute(Value)
        case toOne(Reference?)
        case toMany([Reference])
    }

    struct Insert: Sendable {
        let temporaryID: String
        let entity: EntityDescription
        let values: [(key: String, value: Assignment)]
    }

    struct Update: Sendable {
        let id: ObjectID
        let version: Int64
        let values: [(key: String, value: Assignment)]
    }

    struct Delete: Sendable {
        let id: ObjectID
        let version: Int64
    }

    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    /// Who saves: the `client` its connection named in `hello` (the commit's author).
    var author: String?
    /// How long the save's answer may be; nil when it gets none (a notification).
    var answerLimit: AnswerLimit?

    /// The most bytes a save's `result` may take: what its answer's limit (`--max-answer-bytes`,
    /// or what is left of `--max-batch-answer-bytes` in a batch) leaves after the envelope
    /// around the result. A save whose answer could be longer is refused with `refusal` before
    /// anything is applied (``SaveAnswer``).
    struct AnswerLimit: Sendable {
        let resultBytes: Int
        /// Which limit it is, and its size: the refusal's error is made only for a save refused
        /// (its message is text, and every save carries a limit).
        let limitKind: RPCError.TooLarge
        let limitBytes: Int

        var refusal: RPCError { .tooLarge(limitKind, limit: limitBytes) }
    }

    /// The IDs of existing objects the save names as updated or deleted.
    var namedIDs: [ObjectID] { updates.map(\.id) + deletes.map(\.id) }

    /// Whether `test` holds for every existing object the save names or refers to (its
    /// ``namedIDs`` and ``referencedIDs``), without making arrays of them: the writer asks it of
    /// every save.
    func allExistingIDs(_ test: (ObjectID) -> Bool) -> Bool {
        !anyExistingID { !test($0) }
    }

    /// Whether `test` holds for one of the existing objects the save names or refers to.
    func anyExistingID(_ test: (ObjectID) -> Bool) -> Bool {
        func refersTo(_ values: [(key: String, value: Assignment)]) -> Bool {
            values.contains { _, assignment in
                switch assignment {
                case .attribute: return false
                case .toOne(let reference): return reference?.existingID.map(test) ?? false
                case .toMany(let references): return references.contains { $0.existingID.map(test) ?? false }
                }
            }
        }
        return updates.contains { test($0.id) } || deletes.contains { test($0.id) }
            || inserts.contains { refersTo($0.values) } || updates.contains { refersTo($0.values) }
    }

    /// The IDs of existing objects the save's relationship values refer to.
    var referencedIDs: [ObjectID] {
        (inserts.flatMap(\.values) + updates.flatMap(\.values)).flatMap { _, assignment -> [ObjectID] in
            switch assignment {
            case .attribute: return []
            case .toOne(let reference): return reference.map { [$0] }?.compactMap(\.existingID) ?? []
            case .toMany(let references): return references.compactMap(\.existingID)
            }
        }
    }

    /// The members `params`, an insert, an update and a delete may have.
    private static let members = ["insert", "update", "delete"]
    private static let insertMembers = ["id", "entity", "values"]
    private static let updateMembers = ["id", "version", "values"]
    private static let deleteMembers = ["id", "version"]

    static func parse(_ value: JSONValue, model: ObjectModel) throws(RPCError) -> SaveCall {
        var ids = ObjectIDReader(model: model)
        return try parse(value, ids: &ids)
    }

    /// The save in `value`, its IDs read by a connection's `ids` (which remembers the store and
    /// entity of the last URI, so that the usual ID is read from its bytes without a lookup).
    static func parse(_ value: JSONValue, ids: inout ObjectIDReader) throws(RPCError) -> SaveCall {
        let model = ids.model
        let params = try Params(value, allowed: Self.members)
        var call = SaveCall()
        let inserts = try params.optionalArray("insert") ?? []
        // Temporary IDs first: values may refer to an insert that comes later in the list.
        var temporaryEntities: [String: EntityDescription] = [:]
        var insertParams: [(Params, EntityDescription, String)] = []
        for (index, element) in inserts.enumerated() {
            let insert = try Params(element, list: "params.insert", index: index, allowed: Self.insertMembers)
            let temporaryID = try insert.string("id")
            guard !temporaryID.hasPrefix("graph://"), !temporaryID.isEmpty else {
                throw .invalidParams(insert.path("id"), "a temporary ID must be a non-empty string that does not start with graph://")
            }
            guard temporaryEntities[temporaryID] == nil else {
                throw .invalidParams(insert.path("id"), "temporary ID \"\(RPCError.capped(temporaryID))\" is used twice in this save")
            }
            let entityName = try insert.string("entity")
            guard let entity = model.entity(named: entityName) else {
                throw .invalidParams(insert.path("entity"), "unknown entity '\(RPCError.capped(entityName))' (entities: \(model.entities.map(\.name).joined(separator: ", ")))")
            }
            guard !entity.isAbstract else {
                throw .invalidParams(insert.path("entity"), "entity '\(entity.name)' is abstract: insert one of its sub-entities (\(entity.subentityNames.joined(separator: ", ")))")
            }
            temporaryEntities[temporaryID] = entity
            insertParams.append((insert, entity, temporaryID))
        }
        var reader = AssignmentReader(ids: ids, temporaryEntities: temporaryEntities)
        defer { ids = reader.ids }
        for (insert, entity, temporaryID) in insertParams {
            let values = try reader.values(insert["values"], of: entity, path: insert.path("values"))
            call.inserts.append(Insert(temporaryID: temporaryID, entity: entity, values: values))
        }
        var named = Set<ObjectID>()
        for (index, element) in (try params.optionalArray("update") ?? []).enumerated() {
            let update = try Params(element, list: "params.update", index: index, allowed: Self.updateMembers)
            let id = try reader.existingID(update, named: &named)
            let version = try reader.version(update)
            let values = try reader.values(update["values"], of: id.entity, path: update.path("values"))
            call.updates.append(Update(id: id, version: version, values: values))
        }
        for (index, element) in (try params.optionalArray("delete") ?? []).enumerated() {
            let delete = try Params(element, list: "params.delete", index: index, allowed: Self.deleteMembers)
            let id = try reader.existingID(delete, named: &named)
            call.deletes.append(Delete(id: id, version: try reader.version(delete)))
        }
        return call
    }
}

/// Reads the `values` of an insert or update.
private struct AssignmentReader {
    var ids: ObjectIDReader
    let temporaryEntities: [String: EntityDescription]
    var model: ObjectModel { ids.model }

    mutating func existingID(_ params: Params, named: inout Set<ObjectID>) throws(RPCError) -> ObjectID {
        guard let value = params["id"] else { throw .invalidParams(params.path("id"), "is required (an object ID)") }
        guard case .string(let text) = value else {
            throw .invalidParams(params.path("id"), "must be an object ID (a string), not \(Params.describe(value))")
        }
        let id = try WireValues.objectID(text, reader: &ids, path: params.path("id"))
        guard named.insert(id).inserted else {
            throw .invalidParams(params.path("id"), "\(id) is updated or deleted twice in this save: name each object once")
        }
        return id
    }

    func version(_ params: Params) throws(RPCError) -> Int64 {
        guard let value = params["version"] else {
            throw .invalidParams(params.path("version"), "is required: the version the client read (optimistic locking)")
        }
        guard case .number(let text) = value, let version = Int64(text), version >= 1 else {
            throw .invalidParams(params.path("version"), "must be an integer of at least 1, not \(Params.describe(value))")
        }
        return version
    }

    mutating func values(_ json: JSONValue?, of entity: EntityDescription, path: @autoclosure () -> String) throws(RPCError) -> [(key: String, value: SaveCall.Assignment)] {
        guard let json, json != .null else { return [] }
        guard case .object(let pairs) = json else { throw .invalidParams(path(), "must be an object of property values, not \(json.kindDescription)") }
        var result: [(key: String, value: SaveCall.Assignment)] = []
        for (key, value) in pairs {
            // Made only where it is kept (a relationship's reference) or reported.
            var keyPath: String { "\(path()).\(RPCError.capped(key))" }
            guard let property = entity.property(named: key) else {
                throw .invalidParams(keyPath, "entity '\(entity.name)' has no property '\(RPCError.capped(key))' (properties: \(entity.properties.map(\.name).joined(separator: ", ")))")
            }
            switch property {
            case .attribute(let attribute):
                result.append((key, .attribute(try WireValues.attribute(value, type: attribute.type, path: keyPath))))
            case .relationship(let relationship):
                guard let destination = model.entity(named: relationship.destination) else {
                    throw .invalidParams(keyPath, "the model has no entity '\(relationship.destination)'")
                }
                if relationship.isToMany {
                    guard case .array(let elements) = value else {
                        throw .invalidParams(keyPath, "must be an array of object IDs (to-many relationship to \(destination.name)), not \(value.kindDescription)")
                    }
                    var references: [SaveCall.Reference] = []
                    for (index, element) in elements.enumerated() {
                        references.append(try reference(element, to: destination, path: "\(keyPath)[\(index)]"))
                    }
                    result.append((key, .toMany(references)))
                } else if value == .null {
                    result.append((key, .toOne(nil)))
                } else {
                    result.append((key, .toOne(try reference(value, to: destination, path: keyPath))))
                }
            }
        }
        return result
    }

    private mutating func reference(_ json: JSONValue, to destination: EntityDescription, path: String) throws(RPCError) -> SaveCall.Reference {
        guard case .string(let text) = json else {
            throw .invalidParams(path, "must be an object ID or a temporary ID of this save (a string), not \(Params.describe(json))")
        }
        let entity: EntityDescription
        let reference: SaveCall.Reference
        if text.hasPrefix("graph://") {
            let id = try WireValues.objectID(text, reader: &ids, path: path)
            entity = id.entity
            reference = .existing(id, path: path)
        } else {
            guard let inserted = temporaryEntities[text] else {
                throw .invalidParams(path, "\"\(RPCError.capped(text))\" is neither an object ID (graph://…) nor the temporary ID of an insert in this save")
            }
            entity = inserted
            reference = .temporary(text, path: path)
        }
        guard entity.isKind(of: destination) else {
            throw .invalidParams(path, "leads to \(destination.name) objects, not to a \(entity.name)")
        }
        return reference
    }
}
