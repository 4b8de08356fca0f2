import GraphCore
import JSONCore

/// Writes objects in their wire form:
/// `{"id":"graph://…/Song/12","entity":"Song","version":3,"values":{…}}`, values in the
/// model's property order, attributes as in the store file, relationships as IDs.
enum WireObjectEncoder {
    static func write(_ snapshot: ObjectSnapshot, to out: JSONGenerator) throws {
        let entity = snapshot.objectID.entity
        try out.openObject()
        try out.string("id")
        try out.string(snapshot.objectID.uriRepresentation)
        try out.string("entity")
        try out.string(entity.name)
        try out.string("version")
        try out.integer(snapshot.version)
        try out.string("values")
        try out.openObject()
        let values = snapshot.values
        for (index, property) in entity.properties.enumerated() {
            try out.string(property.name)
            let value = index < values.count ? values[index] : .null
            switch property {
            case .attribute(let attribute):
                try ValueForm.write(value, as: attribute.type, to: out)
            case .relationship(let relationship):
                try writeRelationship(value, isToMany: relationship.isToMany, isOrdered: relationship.isOrdered, to: out)
            }
        }
        try out.closeObject()
        try out.closeObject()
    }

    private static func writeRelationship(_ value: Value, isToMany: Bool, isOrdered: Bool, to out: JSONGenerator) throws {
        switch value {
        case .object(let id):
            try out.string(id.uriRepresentation)
        case .objects(let ids):
            try out.openArray()
            for id in isOrdered ? ids : ids.sorted(by: referenceOrder) { try out.string(id.uriRepresentation) }
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
    static func referenceOrder(_ a: ObjectID, _ b: ObjectID) -> Bool {
        switch (a.referenceObject, b.referenceObject) {
        case (.int(let x), .int(let y)): return a.entityName == b.entityName ? x < y : a.entityName < b.entityName
        default: return a.uriRepresentation < b.uriRepresentation
        }
    }
}
