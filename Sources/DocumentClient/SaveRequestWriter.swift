import DocumentProtocol
import GraphCore
import JSONCore

/// The `params` of `save` for a context's changes: inserted objects under temporary wire
/// IDs with every value, updated objects with the properties that differ from what was
/// read (all of them when that is not known), deleted objects with the version read.
struct SaveRequestWriter: Sendable {
    let request: SaveChangesRequest
    /// Per updated object, the values it was read with at its version, when known.
    let baselines: [ObjectID: ObjectSnapshot]

    /// Temporary wire ID → the inserted object's temporary ID.
    var temporaryIDs: [String: ObjectID] {
        var map: [String: ObjectID] = [:]
        for snapshot in request.insertedObjects where snapshot.objectID.isTemporary {
            map[WireRequestWriter.temporaryWireID(snapshot.objectID)] = snapshot.objectID
        }
        return map
    }

    /// The indexes of the properties of `snapshot` that differ from its baseline.
    func changedIndexes(of snapshot: ObjectSnapshot) -> [Int] {
        let all = Array(snapshot.objectID.entity.properties.indices)
        guard let baseline = baselines[snapshot.objectID], baseline.version == snapshot.version,
              baseline.values.count == snapshot.values.count
        else { return all }
        return all.filter { snapshot.values[$0] != baseline.values[$0] }
    }

    func write(to out: JSONGenerator) throws {
        try out.openObject()
        if !request.insertedObjects.isEmpty {
            try out.string(SaveMembers.insert)
            try out.openArray()
            for snapshot in request.insertedObjects {
                let entity = snapshot.objectID.entity
                try out.openObject()
                try out.string(WireObjectMembers.id)
                try out.string(WireRequestWriter.idText(snapshot.objectID))
                try out.string(WireObjectMembers.entity)
                try out.string(entity.name)
                try out.string(WireObjectMembers.values)
                try WireRequestWriter.writeValues(snapshot.values, of: entity, indexes: entity.properties.indices, to: out)
                try out.closeObject()
            }
            try out.closeArray()
        }
        if !request.updatedObjects.isEmpty {
            try out.string(SaveMembers.update)
            try out.openArray()
            for snapshot in request.updatedObjects {
                try out.openObject()
                try out.string(WireObjectMembers.id)
                try out.string(snapshot.objectID.uriRepresentation)
                try out.string(WireObjectMembers.version)
                try out.integer(snapshot.version)
                try out.string(WireObjectMembers.values)
                try WireRequestWriter.writeValues(snapshot.values, of: snapshot.objectID.entity, indexes: changedIndexes(of: snapshot), to: out)
                try out.closeObject()
            }
            try out.closeArray()
        }
        if !request.deletedObjects.isEmpty {
            try out.string(SaveMembers.delete)
            try out.openArray()
            for snapshot in request.deletedObjects {
                try out.openObject()
                try out.string(WireObjectMembers.id)
                try out.string(snapshot.objectID.uriRepresentation)
                try out.string(WireObjectMembers.version)
                try out.integer(snapshot.version)
                try out.closeObject()
            }
            try out.closeArray()
        }
        try out.closeObject()
    }
}
