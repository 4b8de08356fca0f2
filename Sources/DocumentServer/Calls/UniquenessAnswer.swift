import DocumentProtocol
import GraphCore

/// The `validation` error of a save refused for a uniqueness constraint (docs/PROTOCOL.md,
/// Errors): objects the save inserts are named by their temporary IDs, as the client knows
/// them (their permanent IDs were never given to it), existing objects by their IDs.
enum UniquenessAnswer {
    /// The temporary ID of every object `saves` insert, by its ID at commit.
    static func temporaryNames(of saves: [StagedSave]) -> [ObjectID: String] {
        var names: [ObjectID: String] = [:]
        for save in saves {
            for (temporaryID, object) in save.inserted { names[object.objectID] = temporaryID }
        }
        return names
    }

    /// The error for `violation` (a ``GraphError/uniquenessViolation(entity:attributes:values:objects:)``);
    /// `names` from ``temporaryNames(of:)``.
    static func error(entity: String, attributes: [String], objects: [ObjectID], description: String,
                      names: [ObjectID: String]) -> RPCError {
        let name = { (id: ObjectID) in names[id] ?? id.uriRepresentation }
        // The object of this save first: an inserted one, else the one the store met last.
        let subject = objects.first { names[$0] != nil } ?? objects.last
        // GraphError's text ends with the objects: say them as the client knows them.
        let tail = objects.map(\.uriRepresentation).joined(separator: " and ") + "; nothing was saved"
        var reason = description
        if description.hasSuffix(tail) {
            reason = String(description.dropLast(tail.count)) + objects.map(name).joined(separator: " and ") + "; nothing was saved"
        }
        return .validation([(subject.map(name) ?? entity, entity, attributes.joined(separator: ","), reason)])
    }
}
