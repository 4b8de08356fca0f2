import DocumentProtocol
import GraphCore
import JSONCore

/// What a successful `save` answers (docs/PROTOCOL.md, `save`), and the bound on it that is
/// checked before the save is applied.
///
/// A save must never be applied and then answered with an error: the answer's size is known
/// before the commit up to a few numbers (the permanent IDs' references, the new versions,
/// the commit's `seq`), so the writer builds the answer with each of those at its largest
/// possible length and refuses the save, applying nothing, when that could pass the answer's
/// limit (``SaveCall/AnswerLimit``). The real answer, written after the commit, is never longer.
struct SaveAnswer {
    /// Temporary ID → permanent ID, one per insert.
    var ids: [(temporaryID: String, id: String)] = []
    /// The new version of every inserted or changed object.
    var versions: [(id: String, version: Int64)] = []
    var deleted: [String] = []
    /// Changed by inverses or delete rules, not named by the request.
    var updated: [String] = []
    var sequence: Int64 = 0

    func write(to out: JSONGenerator) throws {
        try out.openObject()
        try out.string("ids")
        try out.openObject()
        for (temporaryID, id) in ids {
            try out.string(temporaryID)
            try out.string(id)
        }
        try out.closeObject()
        try out.string("versions")
        try out.openObject()
        for (id, version) in versions {
            try out.string(id)
            try out.integer(version)
        }
        try out.closeObject()
        try out.string("deleted")
        try out.openArray()
        for id in deleted { try out.string(id) }
        try out.closeArray()
        try out.string("updated")
        try out.openArray()
        for id in updated { try out.string(id) }
        try out.closeArray()
        try out.string("seq")
        try out.integer(sequence)
        try out.closeObject()
    }
}

extension StoreGraph {
    /// The error to answer instead of applying `call`, when its answer could pass
    /// `call.answerLimit`: the answer is bounded with every permanent ID at its largest
    /// reference, every changed object one version up, and `seq` at its largest. Nil: it fits
    /// (or the save gets no answer).
    func answerRefusal(_ call: SaveCall, implicitlyUpdated: [ObjectID], deleted: [ObjectID]) -> RPCError? {
        guard let limit = call.answerLimit else { return nil }
        // Each string counted with every byte escaped: most saves are far below any limit.
        let storeBytes = store.identifier.utf8.count
        let idBytes = { (entity: EntityDescription) in 6 * (8 + storeBytes + 1 + entity.name.utf8.count + 1 + 20) + 3 }
        var rough = 80
        for insert in call.inserts { rough += 6 * insert.temporaryID.utf8.count + 3 + 2 * idBytes(insert.entity) + 21 }
        for id in call.updates.map(\.id) + implicitlyUpdated { rough += 2 * idBytes(id.entity) + 21 }
        for id in deleted { rough += idBytes(id.entity) }
        if rough <= limit.resultBytes { return nil }

        var largestReference = Int64.max
        if let atomic = store as? AtomicStore {
            // Staged saves may number their inserts first.
            let pending = Int64(exactly: context.insertedObjects.count + call.inserts.count) ?? Int64.max
            let (sum, overflow) = atomic.nextReference.addingReportingOverflow(pending)
            largestReference = overflow ? Int64.max : sum
        }
        var answer = SaveAnswer(sequence: Int64.max)
        for insert in call.inserts {
            let id = ObjectID(entity: insert.entity, storeIdentifier: store.identifier, reference: .int(largestReference)).uriRepresentation
            answer.ids.append((insert.temporaryID, id))
            answer.versions.append((id, 1))
        }
        for id in call.updates.map(\.id) + implicitlyUpdated {
            let version = snapshot(of: id)?.version ?? 0
            answer.versions.append((id.uriRepresentation, version == Int64.max ? version : version + 1))
        }
        answer.deleted = deleted.map(\.uriRepresentation)
        answer.updated = implicitlyUpdated.map(\.uriRepresentation)
        guard let bytes = try? JSONText.make({ try answer.write(to: $0) }) else {
            return .invalidParams("params", "the save's answer cannot be written (a temporary ID that is not valid text)")
        }
        return bytes.count > limit.resultBytes ? limit.refusal : nil
    }
}
