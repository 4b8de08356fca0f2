import Foundation
import GraphCore
import JSONCore

/// One object of an import, as its line gave it.
public struct ImportedObject {
    public let entity: EntityDescription
    public let reference: Int64
    public let version: Int64
    /// Indexed as `entity.properties`; relationships as IDs of the header's store.
    public let values: [Value]
    /// Where it was: its line (NDJSON) or element (a JSON array), from 1.
    public let line: Int
}

/// Decodes the object lines of an import for one model and one store UUID: the wire form
/// `{"id","entity","version","values"}`, values as the protocol writes them. Each problem is
/// an ``ImportProblem`` that says what is wrong (the caller names the line). One decoder per
/// thread (a copy shares the fast path's state: make one for each thread instead).
public struct ImportDecoder {
    public let model: ObjectModel
    public let storeUUID: String
    /// `graph://<storeUUID>/`, the prefix of every ID of the export.
    private let prefix: [UInt8]
    /// The fast path for the lines it can take (nil when the model keeps it off).
    private let events: ImportLineEvents?

    /// A decoder of the objects of an export of store `storeUUID` with `model`.
    public init(model: ObjectModel, storeUUID: String) {
        self.model = model
        self.storeUUID = storeUUID
        prefix = Array("graph://\(storeUUID)/".utf8)
        let events = ImportLineEvents(model: model, storeUUID: storeUUID)
        self.events = events.isUsable ? events : nil
    }

    /// Decodes one object from its JSON text: straight from the parser's events when the line
    /// is as an export writes it, else through a `JSONValue` tree, which names the problem.
    public mutating func decode(_ bytes: UnsafeRawBufferPointer, line: Int) throws(ImportProblem) -> ImportedObject {
        if let object = events?.decode(bytes, line: line) { return object }
        return try decodeThroughTree(bytes, line: line)
    }

    /// Decodes one object from its JSON text through a `JSONValue` tree: the slow path, which
    /// accepts every line the fast one does (and the ones it leaves, such as keys in another
    /// order) and names every problem. Public so that a test or fuzzer can compare the two.
    public mutating func decodeThroughTree(_ bytes: UnsafeRawBufferPointer, line: Int) throws(ImportProblem) -> ImportedObject {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes, maximumDepth: 8)
        } catch let error as JSONError {
            throw ImportProblem("invalid JSON at byte \(error.offset) of the line: \(error.reason)")
        } catch {
            throw ImportProblem("\(error)")
        }
        return try decode(json, line: line)
    }

    /// Decodes one object from its JSON value.
    public mutating func decode(_ json: JSONValue, line: Int) throws(ImportProblem) -> ImportedObject {
        guard case .object(let pairs) = json else { throw ImportProblem("expected an object {\"id\",\"entity\",\"version\",\"values\"}, found \(json.kindDescription)") }
        var idText: String?, entityName: String?, versionText: String?, values: [(key: String, value: JSONValue)]?
        for (key, value) in pairs {
            switch (key, value) {
            case ("id", .string(let text)): idText = text
            case ("entity", .string(let text)): entityName = text
            case ("version", .number(let text)): versionText = text
            case ("values", .object(let members)): values = members
            case ("id", _), ("entity", _): throw ImportProblem("\"\(key)\" must be a string, found \(value.kindDescription)")
            case ("version", _): throw ImportProblem("\"version\" must be an integer, found \(value.kindDescription)")
            case ("values", _): throw ImportProblem("\"values\" must be an object, found \(value.kindDescription)")
            default: throw ImportProblem("unknown key \"\(key)\" (an object's keys are id, entity, version and values)")
            }
        }
        guard let idText, let entityName, let versionText, let values else {
            let missing = [("id", idText == nil), ("entity", entityName == nil), ("version", versionText == nil), ("values", values == nil)]
                .filter { $0.1 }.map { "\"\($0.0)\"" }.joined(separator: ", ")
            throw ImportProblem("the object lacks \(missing)")
        }
        guard let entity = model.entitiesByName[entityName] else { throw ImportProblem("the model has no entity \"\(entityName)\"") }
        guard !entity.isAbstract else { throw ImportProblem("entity \(entityName) is abstract: its objects are those of its sub-entities") }
        let id = try objectID(idText)
        guard id.entity === entity else { throw ImportProblem("the ID \(idText) is of entity \(id.entityName), but \"entity\" says \(entityName)") }
        guard case .int(let reference) = id.referenceObject else { throw ImportProblem("the ID \(idText) has no integer reference") }
        guard let version = Int64(versionText), version >= 1 else {
            throw ImportProblem("\"version\" must be an integer from 1 to \(Int64.max), found \(versionText)")
        }
        return ImportedObject(entity: entity, reference: reference, version: version,
                              values: try decodeValues(values, of: entity), line: line)
    }

    private mutating func decodeValues(_ members: [(key: String, value: JSONValue)], of entity: EntityDescription) throws(ImportProblem) -> [Value] {
        var values: [Value] = entity.properties.map { property in
            switch property {
            case .attribute(let attribute): return attribute.defaultValue ?? .null
            case .relationship(let relationship): return relationship.isToMany ? .objects([]) : .null
            }
        }
        for (key, json) in members {
            guard let index = entity.index(ofProperty: key) else {
                throw ImportProblem("\"\(key)\" is not a property of \(entity.name)")
            }
            switch entity.properties[index] {
            case .attribute(let attribute):
                guard let value = ValueForm.value(json, as: attribute.type) else {
                    throw ImportProblem("property \"\(key)\": expected \(ValueForm.expectation(for: attribute.type)), found \(String(json.jsonText.prefix(80)))")
                }
                values[index] = value
            case .relationship(let relationship):
                values[index] = try relationshipValue(json, relationship, key: key)
            }
        }
        return values
    }

    private mutating func relationshipValue(_ json: JSONValue, _ relationship: RelationshipDescription, key: String) throws(ImportProblem) -> Value {
        guard let destination = model.entitiesByName[relationship.destination] else { return .null }
        func target(_ text: String) throws(ImportProblem) -> ObjectID {
            let id = try objectID(text)
            guard id.entity.isKind(of: destination) else {
                throw ImportProblem("property \"\(key)\": \(text) is an \(id.entityName), expected \(destination.name)")
            }
            return id
        }
        switch (json, relationship.isToMany) {
        case (.null, false): return .null
        case (.string(let text), false): return .object(try target(text))
        case (.array(let elements), true):
            var ids: [ObjectID] = []
            ids.reserveCapacity(elements.count)
            for element in elements {
                guard case .string(let text) = element else {
                    throw ImportProblem("property \"\(key)\": expected an array of object IDs, found \(element.kindDescription) in it")
                }
                ids.append(try target(text))
            }
            return .objects(ids)
        case (_, false): throw ImportProblem("property \"\(key)\": expected an object ID or null, found \(json.kindDescription)")
        case (_, true): throw ImportProblem("property \"\(key)\": expected an array of object IDs, found \(json.kindDescription)")
        }
    }

    /// The ID `text` spells: `graph://<storeUUID>/<Entity>/<reference>`, the store the
    /// header names, a concrete entity, a reference from 1 to 2⁶³−1.
    ///
    /// Parsed every time, from the bytes: no String is made for a valid ID (an entity name of up
    /// to 15 bytes is a small string) and none is remembered. (A cache of the IDs seen, by their
    /// text, cost more than it saved: each ID of an export appears about twice, and hashing,
    /// storing and freeing a dictionary of 60-byte keys took a fifth of an import's time.)
    private func objectID(_ text: String) throws(ImportProblem) -> ObjectID {
        var copy = text
        let parsed: (entity: EntityDescription?, reference: Int64)? = copy.withUTF8 { bytes in
            guard bytes.count > prefix.count, bytes.starts(with: prefix),
                  let slash = bytes[prefix.count...].firstIndex(of: UInt8(ascii: "/")) else { return nil }
            let referenceBytes = bytes[(slash + 1)...]
            guard !referenceBytes.isEmpty, referenceBytes.count <= 19 else { return nil }
            var reference: Int64 = 0
            for byte in referenceBytes {
                guard (0x30...0x39).contains(byte) else { return nil }
                let (times, overflow) = reference.multipliedReportingOverflow(by: 10)
                let (sum, overflowAgain) = times.addingReportingOverflow(Int64(byte &- 0x30))
                guard !overflow, !overflowAgain else { return nil }
                reference = sum
            }
            guard reference >= 1 else { return nil }
            let name = String(decoding: bytes[prefix.count..<slash], as: UTF8.self)
            return (model.entitiesByName[name], reference)
        }
        guard let parsed else {
            if !text.hasPrefix("graph://\(storeUUID)/"), text.hasPrefix("graph://") {
                throw ImportProblem("the ID \(text) is not of the exported store \(storeUUID) (the header's storeUUID)")
            }
            throw ImportProblem("\(text) is not an object ID graph://\(storeUUID)/<Entity>/<reference from 1 to \(Int64.max)>")
        }
        guard let entity = parsed.entity, !entity.isAbstract else {
            throw ImportProblem("the ID \(text) names \(Self.entityName(in: text, after: prefix.count)), which is not a concrete entity of the model")
        }
        return ObjectID(entity: entity, storeIdentifier: storeUUID, reference: .int(parsed.reference))
    }

    /// The entity part of an ID whose prefix is `count` bytes long, for a message.
    private static func entityName(in text: String, after count: Int) -> String {
        let rest = text.utf8.dropFirst(count)
        return String(decoding: rest.prefix { $0 != UInt8(ascii: "/") }, as: UTF8.self)
    }
}

/// What is wrong with a line of an import (the caller adds the line number), or with the
/// import as a whole.
public struct ImportProblem: Error, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
