import Foundation
import JSONCore
import GraphCore

/// Writes a whole store file with `yajl_gen`, in the one deterministic form
/// `docs/FILE_FORMAT.md` describes: compact, keys in a fixed order, entities by name,
/// objects by reference, one `\n` at the end.
///
/// The output goes to a sink in chunks of about ``chunkSize`` bytes as it is generated.
struct StoreFileEncoder {
    /// How much output is gathered before it goes to the sink.
    static let chunkSize = 1 << 20

    let plan: ModelPlan
    let metadata: StoreMetadata
    let nextReference: Int64
    /// The last commit the file holds (`"commitSequence"`, written when above 0).
    let commitSequence: Int64
    /// Says which references point at deleted objects (left out of the file).
    let dangling: DanglingFilter
    /// Entities with objects, sorted by the bytes of their names, each with its nodes by reference.
    let groups: [(entity: EntityPlan, nodes: [ObjectSnapshot], references: [Int64])]

    /// Gathers and sorts the nodes of every concrete entity; `nodes` gives an entity's nodes.
    init(plan: ModelPlan, metadata: StoreMetadata, nextReference: Int64, commitSequence: Int64 = 0,
         dangling: DanglingFilter, nodes: (String) -> [ObjectSnapshot]) throws {
        self.plan = plan
        self.commitSequence = commitSequence
        self.metadata = metadata
        self.dangling = dangling
        var groups: [(entity: EntityPlan, nodes: [ObjectSnapshot], references: [Int64])] = []
        var largest: Int64 = 0
        let entities = plan.entities.filter { !$0.entity.isAbstract }
            .sorted { $0.nameUTF8.lexicographicallyPrecedes($1.nameUTF8) }
        for entity in entities {
            var entityNodes = nodes(entity.name)
            guard !entityNodes.isEmpty else { continue }
            var references = try entityNodes.map { node -> Int64 in
                guard case .int(let reference) = node.objectID.referenceObject else {
                    throw JSONStoreError.unencodableValue(entity: entity.name, reference: node.objectID.referenceObject.description,
                                                          property: "ref", reason: "references in a JSON store are integers")
                }
                return reference
            }
            if !zip(references, references.dropFirst()).allSatisfy({ $0 < $1 }) {
                let order = references.indices.sorted { references[$0] < references[$1] }
                entityNodes = order.map { entityNodes[$0] }
                references = order.map { references[$0] }
            }
            largest = max(largest, references.last ?? 0)
            groups.append((entity, entityNodes, references))
        }
        self.groups = groups
        self.nextReference = max(nextReference, StoreFileFormat.reference(after: largest))
    }

    /// Generates the file into `sink`.
    func write(to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let out = try JSONGenerator()
        try out.openObject()
        try out.string("format")
        try out.string(StoreFileFormat.name)
        try out.string("formatVersion")
        try out.integer(StoreFileFormat.version)
        try out.string("metadata")
        try writeMetadata(out)
        try out.string("objects")
        try out.openObject()
        // A large store is generated on two more threads while this one writes.
        let parallel = ParallelObjectWriter.worthIt(self) ? ParallelObjectWriter(encoder: self) : nil
        parallel?.start()
        defer { parallel?.finish() }
        for (groupIndex, group) in groups.enumerated() {
            try out.string(group.entity.nameUTF8)
            try out.openArray()
            if let parallel {
                try out.flush(sink)
                var first = true
                for (index, segment) in parallel.segments.enumerated() where segment.group == groupIndex {
                    if !first { try sink(Self.comma) }
                    first = false
                    try parallel.take(index).withUnsafeBytes { try sink($0) }
                }
            } else {
                let writer = ObjectWriter(entity: group.entity, out: out, dangling: dangling)
                for (node, reference) in zip(group.nodes, group.references) {
                    try writer.write(node, reference: reference)
                    if out.bufferedCount >= Self.chunkSize { try out.flush(sink) }
                }
            }
            try out.closeArray()
        }
        try out.closeObject()
        try out.closeObject()
        try out.flush(sink)
        let newline: StaticString = "\n"
        try sink(UnsafeRawBufferPointer(start: newline.utf8Start, count: 1))
    }

    private static var comma: UnsafeRawBufferPointer {
        let comma: StaticString = ","
        return UnsafeRawBufferPointer(start: comma.utf8Start, count: 1)
    }

    private func writeMetadata(_ out: JSONGenerator) throws {
        func sortedPairs(_ dictionary: [String: String]) -> [(String, String)] {
            dictionary.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
        }
        try out.openObject()
        try out.string("storeType")
        try out.string(metadata.storeType)
        try out.string("storeUUID")
        try out.string(metadata.storeIdentifier)
        try out.string("modelVersionHash")
        try out.string(plan.model.versionHash)
        try out.string("entityVersionHashes")
        try out.openObject()
        for (name, hash) in sortedPairs(plan.model.entityVersionHashes) {
            try out.string(name)
            try out.string(hash)
        }
        try out.closeObject()
        try out.string("nextReference")
        try out.integer(nextReference)
        if commitSequence > 0 {
            try out.string("commitSequence")
            try out.integer(commitSequence)
        }
        try out.string("userInfo")
        try out.openObject()
        for (key, value) in sortedPairs(metadata.userInfo) {
            try out.string(key)
            try out.string(value)
        }
        try out.closeObject()
        try out.closeObject()
    }
}

/// Writes the objects of one entity: `{"ref":…,"version":…,"values":{…}}`.
struct ObjectWriter {
    let entity: EntityPlan
    let out: JSONGenerator
    let dangling: DanglingFilter

    func write(_ node: ObjectSnapshot, reference: Int64) throws {
        let flat = entity.flat
        try out.openObject()
        try out.string("ref")
        try out.integer(reference)
        try out.string("version")
        try out.integer(node.version)
        try out.string("values")
        try out.openObject()
        let values = node.values
        for index in 0..<flat.count {
            try out.string(flat.name(index))
            do {
                if index < values.count {
                    try write(values[index], kind: flat.kinds[index], ordered: flat.isOrdered[index])
                } else {
                    try out.null()
                }
            } catch let error as UnencodableValue {
                throw JSONStoreError.unencodableValue(entity: entity.name, reference: String(reference),
                                                      property: entity.properties[index].name, reason: error.reason)
            }
        }
        try out.closeObject()
        try out.closeObject()
    }

    struct UnencodableValue: Error {
        let reason: String
    }

    @inline(__always)
    private func write(_ value: Value, kind: PropertyKind, ordered: Bool) throws {
        switch (kind, value) {
        case (_, .null) where kind != .toMany: try out.null()
        case (.toOne, .object(let id)):
            let reference = try Self.reference(id)
            if dangling.isGone(id, reference: reference) { try out.null() } else { try out.integer(reference) }
        case (.toMany, .objects(let ids)):
            var references: [Int64] = []
            references.reserveCapacity(ids.count)
            for id in ids {
                let reference = try Self.reference(id)
                if !dangling.isGone(id, reference: reference) { references.append(reference) }
            }
            if !ordered { references.sort() }
            try out.openArray()
            for reference in references { try out.integer(reference) }
            try out.closeArray()
        case (.toMany, .null):
            try out.openArray()
            try out.closeArray()
        default:
            guard let type = kind.attributeType else {
                throw UnencodableValue(reason: "a property of kind \(kind) holds \(value.kindName) \(value)")
            }
            do {
                try ValueForm.write(value, as: type, to: out)
            } catch let error as ValueForm.UnencodableValue {
                throw UnencodableValue(reason: error.reason)
            }
        }
    }

    private static func reference(_ id: ObjectID) throws -> Int64 {
        guard !id.isTemporary, case .int(let reference) = id.referenceObject else {
            throw UnencodableValue(reason: "it refers to \(id), which has no integer reference in this store")
        }
        return reference
    }
}
