import Foundation
import JSONCore
import GraphCore

/// Objects and their values: what the decoder does at the start and end of an object, and
/// how each JSON scalar becomes a ``Value`` of its property's type.
extension StoreFileDecoder {
    /// A JSON scalar, for error messages.
    enum Found {
        case null
        case bool(Bool)
        case number(String)
        case string(String)

        var text: String {
            switch self {
            case .null: return "null"
            case .bool(let value): return value ? "true" : "false"
            case .number(let text), .string(let text): return text
            }
        }
    }

    // MARK: - Objects

    func beginObject() {
        guard let flat else { return }
        reference = nil
        version = nil
        sawValues = false
        nextGuess = 0
        values = [Value](repeating: .null, count: flat.count)
        for index in 0..<flat.count { seen[index] = false }
        state = .object
    }

    func endOfObject() throws {
        guard let flat, let entity else { return }
        guard let reference else { throw invalidObject("has no \"ref\"") }
        guard let version else { throw invalidObject("has no \"version\"") }
        guard sawValues else { throw invalidObject("has no \"values\"") }
        for index in 0..<flat.count where !seen[index] {
            values[index] = entity.properties[index].missingValue
        }
        for slot in 0..<flat.requiredCount {
            let index = Int(flat.required[slot])
            if values[index].isNull {
                throw JSONStoreError.missingValue(file: file, entity: entity.name, reference: reference,
                                                  property: entity.properties[index].name)
            }
        }
        if identifierOfNodes == nil { identifierOfNodes = store.identifier }
        let maker: ObjectID.Maker
        if let idMaker, idMaker.entity === entity.entity {
            maker = idMaker
        } else {
            maker = store.objectIDMaker(for: entity.entity)
            idMaker = maker
        }
        let id = maker.id(reference)
        nodes.append(ObjectSnapshot(objectID: id, version: version, values: values))
        nodeEntities.append(Int32(entity.index))
        nodeReferences.append(reference)
        values = []  // the node holds the only reference: later writes into it happen in place
    }

    func endOfMetadata() throws {
        guard storeUUID != nil else { throw JSONStoreError.notAStoreFile(file: file, reason: "\"metadata\" has no \"storeUUID\"") }
        guard let hashes = entityVersionHashes else {
            throw JSONStoreError.notAStoreFile(file: file, reason: "\"metadata\" has no \"entityVersionHashes\"")
        }
        let differing = plan.model.entitiesDiffering(from: hashes)
        if !differing.isEmpty { throw JSONStoreError.modelMismatch(file: file, entities: differing) }
    }

    func endOfDocument() throws {
        guard sawFormat else {
            throw JSONStoreError.notAStoreFile(file: file, reason: "there is no \"format\": \"\(StoreFileFormat.name)\"")
        }
        guard sawFormatVersion else { throw JSONStoreError.notAStoreFile(file: file, reason: "there is no \"formatVersion\"") }
        guard sawMetadata else { throw JSONStoreError.notAStoreFile(file: file, reason: "there is no \"metadata\"") }
        // "objects" came before "metadata": the nodes' IDs were made before the store's UUID was known.
        if let identifierOfNodes, identifierOfNodes != store.identifier {
            nodes = nodes.map { node in
                ObjectSnapshot(objectID: store.objectID(for: node.objectID.entity, referenceObject: node.objectID.referenceObject),
                          version: node.version, values: node.values)
            }
        }
    }

    private func invalidObject(_ reason: String) -> JSONStoreError {
        .invalidObject(file: file, entity: entity?.name ?? "", reference: reference, reason: reason)
    }

    // MARK: - Values

    func decodeNumber(_ text: UnsafeRawBufferPointer, property index: Int) throws {
        guard let flat else { return }
        switch flat.kinds[index] {
        case .toOne:
            guard let target = JSONNumberText.integer(text), target > 0 else { throw invalidValue(index, found: text.string) }
            toOne.append(PendingReference(target: target, node: Int32(nodes.count), property: Int32(index)))
        case .toMany:
            throw invalidValue(index, found: text.string)
        case let kind:
            guard let type = kind.attributeType, let value = ValueForm.value(number: text, as: type) else {
                throw invalidValue(index, found: text.string)
            }
            values[index] = value
        }
    }

    func decodeString(_ bytes: UnsafeRawBufferPointer, property index: Int) throws {
        guard let flat else { return }
        guard let type = flat.kinds[index].attributeType, let value = ValueForm.value(string: bytes, as: type) else {
            throw invalidValue(index, found: bytes.quotedForMessage())
        }
        values[index] = value
    }

    func decodeScalar(_ found: Found, property index: Int) throws {
        guard let flat else { return }
        switch (flat.kinds[index], found) {
        case (.toMany, .null):
            throw invalidValue(index, found: found.text)
        case (_, .null):
            values[index] = .null
        case (.bool, .bool(let value)):
            values[index] = .bool(value)
        default:
            throw invalidValue(index, found: found.text)
        }
    }

    func invalidValue(_ index: Int, found: String) -> JSONStoreError {
        let property = entity?.properties[index]
        return .invalidValue(file: file, entity: entity?.name ?? "", reference: reference, property: property?.name ?? "",
                             expected: property.map(Self.expected) ?? "a value", found: found)
    }

    /// What a property's value must look like, for messages.
    static func expected(_ property: PropertyPlan) -> String {
        switch property.kind {
        case .toOne: return "a reference (positive integer) or null"
        case .toMany: return "an array of references (positive integers)"
        case .attribute(let type): return ValueForm.expectation(for: type)
        }
    }

    /// A value where the file's shape expects something else.
    func shapeError(found: String) -> Error {
        switch state {
        case .document: return JSONShapeError("the top-level value must be an object, found \(found)")
        case .rootValue(.format):
            return JSONStoreError.notAStoreFile(file: file, reason: "\"format\" is \(found), expected \"\(StoreFileFormat.name)\"")
        case .rootValue(.formatVersion): return JSONStoreError.unsupportedFormatVersion(file: file, found: found)
        case .rootValue(.metadata): return JSONShapeError("\"metadata\" must be an object, found \(found)")
        case .rootValue(.objects): return JSONShapeError("\"objects\" must be an object, found \(found)")
        case .metadataValue(let key):
            let expected = key == .nextReference ? "an integer" : key == .storeType || key == .storeUUID || key == .modelVersionHash ? "a string" : "an object of strings"
            return JSONShapeError("\"metadata\".\"\(key.rawValue)\" must be \(expected), found \(found)")
        case .stringMapValue(let map):
            return JSONShapeError("\"metadata\".\"\(map)\".\"\(mapKey)\" must be a string, found \(found)")
        case .objectsValue(let index):
            return JSONShapeError("\"objects\".\"\(plan.entities[index].name)\" must be an array of objects, found \(found)")
        case .objectList: return JSONShapeError("the objects of \"\(entity?.name ?? "")\" must be JSON objects, found \(found)")
        case .objectValue(.values): return invalidObject("\"values\" must be an object, found \(found)")
        case .objectValue(let key): return invalidObject("\"\(key.rawValue)\" must be a positive integer, found \(found)")
        case .references(let index): return invalidValue(index, found: found)
        default: return JSONShapeError("unexpected \(found)")
        }
    }
}
