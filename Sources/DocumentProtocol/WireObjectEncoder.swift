import GraphCore
import JSONCore

/// Writes objects in their wire form:
/// `{"id":"graph://…/Song/12","entity":"Song","version":3,"values":{…}}`, values in the
/// model's property order, attributes as in the store file, relationships as IDs.
///
/// One writer for both ends: the server writes objects (IDs as URIs, unordered to-many
/// lists sorted by reference, so that an answer does not depend on set order), a client
/// writes the values of a save (its new objects by temporary wire IDs, lists as it holds them).
public enum WireObjectEncoder {
    /// Writes an object as the server answers it.
    public static func write(_ snapshot: ObjectSnapshot, to out: JSONGenerator) throws {
        try write(snapshot, to: out, writeID: writeURI)
    }

    /// Writes an ID's URI form as one JSON string (spelled on the stack, not as a `String`).
    @inline(__always)
    public static func writeURI(_ id: ObjectID, to out: JSONGenerator) throws {
        try id.withURIBytes { try out.string($0) }
    }

    /// Writes an object as the server answers it, each ID (its own and its relationships') by
    /// `writeID`, which must write the ID's URI form as one JSON string: for a writer that spells
    /// IDs from bytes it keeps (`docserver export`) instead of making a String for each.
    public static func write(_ snapshot: ObjectSnapshot, to out: JSONGenerator,
                             writeID: (ObjectID, JSONGenerator) throws -> Void) throws {
        let entity = snapshot.objectID.entity
        try out.openObject()
        try out.string(WireObjectMembers.id)
        try writeID(snapshot.objectID, out)
        try out.string(WireObjectMembers.entity)
        try out.string(entity.name)
        try out.string(WireObjectMembers.version)
        try out.integer(snapshot.version)
        try out.string(WireObjectMembers.values)
        try writeValues(snapshot.values, of: entity, indexes: entity.properties.indices,
                        writeID: writeID, sortsUnorderedByReference: true, to: out)
        try out.closeObject()
    }

    /// Writes `{"key": value, …}` for the properties at `indexes`: attributes in their
    /// `ValueForm` (JSONCore), relationships as the IDs `idText` spells; unordered to-many lists sorted
    /// by reference when `sortsUnorderedByReference`, else as they are.
    public static func writeValues(_ values: [Value], of entity: EntityDescription, indexes: some Sequence<Int>,
                                   idText: (ObjectID) -> String, sortsUnorderedByReference: Bool,
                                   to out: JSONGenerator) throws {
        try writeValues(values, of: entity, indexes: indexes, writeID: { try $1.string(idText($0)) },
                        sortsUnorderedByReference: sortsUnorderedByReference, to: out)
    }

    /// ``writeValues(_:of:indexes:idText:sortsUnorderedByReference:to:)`` with each ID written by
    /// `writeID` (one JSON string).
    public static func writeValues(_ values: [Value], of entity: EntityDescription, indexes: some Sequence<Int>,
                                   writeID: (ObjectID, JSONGenerator) throws -> Void, sortsUnorderedByReference: Bool,
                                   to out: JSONGenerator) throws {
        // The names and shapes, not the descriptions: copying a description retains each of its strings.
        let names = entity.propertyNames, shapes = entity.propertyShapes
        try out.openObject()
        for index in indexes {
            try out.string(names[index])
            let value = index < values.count ? values[index] : .null
            switch shapes[index] {
            case .attribute(let type):
                try ValueForm.write(value, as: type, to: out)
            case .relationship(let isToMany, let isOrdered):
                try writeRelationship(value, isToMany: isToMany, sorted: sortsUnorderedByReference && !isOrdered, writeID: writeID, to: out)
            }
        }
        try out.closeObject()
    }

    private static func writeRelationship(_ value: Value, isToMany: Bool, sorted: Bool, writeID: (ObjectID, JSONGenerator) throws -> Void,
                                          to out: JSONGenerator) throws {
        switch value {
        case .object(let id):
            try writeID(id, out)
        case .objects(let ids):
            try out.openArray()
            for id in sorted ? ids.sorted(by: referenceOrder) : ids { try writeID(id, out) }
            try out.closeArray()
        default:
            if isToMany {
                try out.openArray()
                try out.closeArray()
            } else {
                try out.null()
            }
        }
    }

    /// IDs of one store by reference: integers by value, other references by their text.
    public static func referenceOrder(_ a: ObjectID, _ b: ObjectID) -> Bool {
        switch (a.referenceObject, b.referenceObject) {
        case (.int(let x), .int(let y)): return a.entityName == b.entityName ? x < y : a.entityName < b.entityName
        default: return a.uriRepresentation < b.uriRepresentation
        }
    }
}
