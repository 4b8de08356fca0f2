import Foundation
import JSONCore
import GraphCore

/// Writes one journal record (`docs/FILE_FORMAT.md`, "The journal"): one line of compact
/// JSON, `\n`-terminated, holding what one commit changed. Objects are written by the
/// snapshot's own ``ObjectWriter``, grouped by entity as in the snapshot's `"objects"`.
struct JournalRecordEncoder {
    let plan: ModelPlan
    /// Says which references point at deleted objects (left out, as in the snapshot).
    let dangling: DanglingFilter

    /// Whether records end with their checksum (``JournalFormat/seal(_:)``; a version 2 journal).
    var checksum = true

    /// The bytes of the record of commit `sequence`, `\n` included.
    func record(sequence: Int64, time: Date, author: String?, changes: AtomicStoreChanges) throws -> [UInt8] {
        let out = try JSONGenerator()
        try out.openObject()
        try out.string("seq")
        try out.integer(sequence)
        try out.string("time")
        try ValueForm.write(.date(time), as: .date, to: out)
        if let author {
            try out.string("author")
            try out.string(author)
        }
        try out.string("nextReference")
        try out.integer(changes.nextReference)
        try out.string("inserted")
        try writeObjects(changes.inserted, to: out)
        try out.string("updated")
        try writeObjects(changes.updated, to: out)
        try out.string("deleted")
        try out.openArray()
        for node in changes.deleted {
            try out.openObject()
            try out.string("entity")
            try out.string(node.objectID.entityName)
            try out.string("reference")
            try out.integer(try Self.reference(of: node, entity: node.objectID.entityName))
            try out.closeObject()
        }
        try out.closeArray()
        try out.closeObject()
        var bytes: [UInt8] = []
        try out.flush { bytes.append(contentsOf: $0) }
        if checksum { JournalFormat.seal(&bytes) }
        bytes.append(0x0A)
        return bytes
    }

    /// `{"Entity":[objects by reference],…}`, entities by the bytes of their names.
    private func writeObjects(_ nodes: [ObjectSnapshot], to out: JSONGenerator) throws {
        try out.openObject()
        guard let first = nodes.first?.objectID.entityName else { return try out.closeObject() }
        if nodes.allSatisfy({ $0.objectID.entityName == first }) {
            // Most records: one object, or objects of one entity; nothing to group.
            try writeEntity(first, nodes, to: out)
        } else {
            var byEntity: [String: [ObjectSnapshot]] = [:]
            for node in nodes { byEntity[node.objectID.entityName, default: []].append(node) }
            let names = byEntity.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for name in names { try writeEntity(name, byEntity[name] ?? [], to: out) }
        }
        try out.closeObject()
    }

    /// `"Entity":[objects by reference]` for `nodes`, all of the entity `name`.
    private func writeEntity(_ name: String, _ nodes: [ObjectSnapshot], to out: JSONGenerator) throws {
        guard let entity = plan.entities.first(where: { $0.name == name }) else {
            throw JSONStoreError.unencodableValue(entity: name, reference: nodes.first?.objectID.referenceObject.description ?? "",
                                                  property: "entity", reason: "the store's model has no such entity")
        }
        let writer = ObjectWriter(entity: entity, out: out, dangling: dangling)
        try out.string(entity.nameUTF8)
        try out.openArray()
        let byReference = try nodes.map { (reference: try Self.reference(of: $0, entity: name), node: $0) }
            .sorted { $0.reference < $1.reference }
        for (reference, node) in byReference { try writer.write(node, reference: reference) }
        try out.closeArray()
    }

    private static func reference(of node: ObjectSnapshot, entity: String) throws -> Int64 {
        guard case .int(let reference) = node.objectID.referenceObject else {
            throw JSONStoreError.unencodableValue(entity: entity, reference: node.objectID.referenceObject.description,
                                                  property: "ref", reason: "references in a JSON store are integers")
        }
        return reference
    }
}
