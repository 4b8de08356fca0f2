import DocumentProtocol
import GraphCore
import JSONCore

/// An object as a `get` or `fetch` answers it.
enum WireObject: Sendable {
    /// The object with its values.
    case snapshot(ObjectSnapshot)
    /// The object is still at the version the client holds (`get` with `versions`).
    case unchanged(ObjectID, version: Int64)

    var objectID: ObjectID {
        switch self {
        case .snapshot(let snapshot): return snapshot.objectID
        case .unchanged(let id, _): return id
        }
    }
}

/// Reads objects and IDs of the wire into GraphCore values, for one model. IDs repeat
/// (every song names its album): each distinct ID text is parsed once per reader.
struct WireObjectReader {
    let model: ObjectModel
    let address: String
    private var ids: [String: ObjectID] = [:]

    init(model: ObjectModel, address: String) {
        self.model = model
        self.address = address
    }

    private func invalid(_ reason: String) -> DocumentClientError {
        .invalidResponse(address: address, reason: reason)
    }

    /// Makes `text` read as `id` without parsing it: for the IDs a request named, which its
    /// answer repeats.
    mutating func remember(_ id: ObjectID, as text: String) {
        ids[text] = id
    }

    mutating func objectID(_ json: JSONValue, at path: String) throws(DocumentClientError) -> ObjectID {
        guard case .string(let text) = json else { throw invalid("\(path) is not an object ID but \(json.kindDescription)") }
        return try objectID(text, at: path)
    }

    mutating func objectID(_ text: String, at path: String) throws(DocumentClientError) -> ObjectID {
        if let id = ids[text] { return id }
        do {
            let id = try ObjectID(uri: text, model: model)
            ids[text] = id
            return id
        } catch {
            throw invalid("\(path): \(error)")
        }
    }

    mutating func objectIDs(_ json: JSONValue?, at path: String) throws(DocumentClientError) -> [ObjectID] {
        guard case .array(let elements)? = json else { throw invalid("\(path) is not an array of object IDs") }
        var result: [ObjectID] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            result.append(try objectID(element, at: "\(path)[\(index)]"))
        }
        return result
    }

    /// An object: `{"id","entity","version","values"}`, or without `values` when unchanged.
    mutating func object(_ json: JSONValue, at path: String) throws(DocumentClientError) -> WireObject {
        guard case .object(let members) = json else { throw invalid("\(path) is not an object but \(json.kindDescription)") }
        var idJSON: JSONValue?, versionJSON: JSONValue?, valuesJSON: JSONValue?
        for (key, value) in members {
            switch key {
            case WireObjectMembers.id: idJSON = value
            case WireObjectMembers.version: versionJSON = value
            case WireObjectMembers.values: valuesJSON = value
            default: break
            }
        }
        guard let idJSON else { throw invalid("\(path) has no id") }
        let id = try objectID(idJSON, at: "\(path).id")
        guard case .number(let versionText)? = versionJSON, let version = Int64(versionText) else {
            throw invalid("\(path).version is not an integer")
        }
        guard let valuesJSON else { return .unchanged(id, version: version) }
        guard case .object(let pairs) = valuesJSON else { throw invalid("\(path).values is not an object") }
        let entity = id.entity
        var values = entity.properties.map { property -> Value in
            if case .relationship(let relationship) = property, relationship.isToMany { return .objects([]) }
            return .null
        }
        for (key, json) in pairs {
            guard let index = entity.index(ofProperty: key) else { continue }  // a newer server's property
            values[index] = try value(json, for: entity.properties[index], at: "\(path).values.\(key)")
        }
        return .snapshot(ObjectSnapshot(objectID: id, version: version, values: values))
    }

    private mutating func value(_ json: JSONValue, for property: PropertyDescription, at path: String) throws(DocumentClientError) -> Value {
        switch property {
        case .attribute(let attribute):
            guard let value = ValueForm.value(json, as: attribute.type) else { throw invalid("\(path) is not \(ValueForm.expectation(for: attribute.type)): \(json.jsonText)") }
            return value
        case .relationship(let relationship):
            if relationship.isToMany { return .objects(try objectIDs(json, at: path)) }
            if case .null = json { return .null }
            return .object(try objectID(json, at: path))
        }
    }

    /// A snapshot as it reads back after a trip over the wire: what the server keeps of it.
    mutating func throughWire(_ snapshot: ObjectSnapshot) throws -> ObjectSnapshot {
        let entity = snapshot.objectID.entity
        let bytes = try JSONText.make { out in
            try WireRequestWriter.writeValues(snapshot.values, of: entity, indexes: entity.properties.indices, to: out)
        }
        let values = try bytes.withUnsafeBytes { try JSONValue.parse($0) }
        let object = JSONValue.object([("id", .string(snapshot.objectID.uriRepresentation)),
                                       ("version", .integer(snapshot.version)), ("values", values)])
        guard case .snapshot(let normalized) = try self.object(object, at: "saved object") else { return snapshot }
        return normalized
    }
}
