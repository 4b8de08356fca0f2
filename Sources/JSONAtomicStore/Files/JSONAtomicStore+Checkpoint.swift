import Foundation
import GraphCore
#if canImport(Glibc)
import Glibc
#endif

extension JSONAtomicStore {
    /// Folds the journal into a new snapshot file, now: ``beginCheckpoint()``, the snapshot
    /// of the store's nodes, ``finishCheckpoint(_:)``. Crash-safe at every step: the store
    /// reopens to the same objects whenever the process stops.
    ///
    /// - Throws: ``JSONStoreError/readOnly(path:)``, ``JSONStoreError/loadFailed(path:)``,
    ///   ``JSONStoreError/checkpointRefused(path:reason:)`` while another checkpoint is under
    ///   way, an I/O error (the journal then stays, and nothing is lost).
    public func checkpoint() throws {
        let ticket = try beginCheckpoint()
        do {
            let dangling = DanglingFilter(deleted: deletedReferences.references,
                                          exists: { [unowned self] in self.cacheNode(for: $0) != nil })
            let encoder = try StoreFileEncoder(plan: try plan(), metadata: ticket.metadata, nextReference: ticket.nextReference,
                                               commitSequence: ticket.commitSequence, dangling: dangling,
                                               nodes: { [unowned self] in self.cacheNodes(ofEntity: $0) })
            try DurableFile.replace(path: realPath, newFileMode: newFileMode) { sink in try encoder.write(to: sink) }
            try finishCheckpoint(ticket)
        } catch {
            abandonCheckpoint(ticket)
            throw error
        }
    }

    /// Begins a checkpoint (step 1 of 3, on the thread that saves): notes the last commit and
    /// the journal's length. Then write the snapshot with ``writeSnapshot(_:objects:)`` (on any
    /// thread, while saves go on) from the objects as they were right after
    /// ``CheckpointTicket/commitSequence``, and end with ``finishCheckpoint(_:)``, or with
    /// ``abandonCheckpoint(_:)`` when writing failed. One checkpoint at a time.
    ///
    /// - Throws: ``JSONStoreError/readOnly(path:)``, ``JSONStoreError/loadFailed(path:)``,
    ///   ``JSONStoreError/checkpointRefused(path:reason:)`` while another one is under way.
    public func beginCheckpoint() throws -> CheckpointTicket {
        if options.isReadOnly { throw JSONStoreError.readOnly(path: path) }
        if loadFailed { throw JSONStoreError.loadFailed(path: path) }
        if checkpointInFlight != nil {
            throw JSONStoreError.checkpointRefused(path: path, reason: "another checkpoint is under way")
        }
        guard let model else { throw GraphError.store("store \(path) has no coordinator (and so no model)") }
        checkpointsBegun += 1
        checkpointInFlight = checkpointsBegun
        return CheckpointTicket(commitSequence: commitSequence, number: checkpointsBegun, journalLength: journal.length,
                                snapshotPath: realPath, fileMode: newFileMode, model: model, metadata: metadata,
                                nextReference: nextReference, deletedReferences: deletedReferences.references)
    }

    /// Writes the snapshot of a checkpoint (step 2 of 3): a new store file holding `objects`
    /// (the store's every object as it was right after the ticket's commit; values indexed as
    /// their entity's properties) and `"commitSequence"`, replacing the old one atomically and
    /// durably (temporary file, `fsync`, `rename`, directory `fsync`). Touches no state of the
    /// store: it may run on any thread while the store saves.
    ///
    /// - Throws: ``JSONStoreError/unencodableValue(entity:reference:property:reason:)``, an I/O error.
    public static func writeSnapshot<Objects: Sequence>(_ ticket: CheckpointTicket, objects: Objects) throws
    where Objects.Element == ObjectSnapshot {
        var byEntity: [String: [ObjectSnapshot]] = [:]
        var present: Set<Int64> = []
        let trackPresence = !ticket.deletedReferences.isEmpty
        for object in objects {
            byEntity[object.objectID.entityName, default: []]
                .append(ObjectSnapshot(objectID: object.objectID, version: object.version, values: object.values))
            if trackPresence, case .int(let reference) = object.objectID.referenceObject { present.insert(reference) }
        }
        let dangling = DanglingFilter(deleted: ticket.deletedReferences, exists: { id in
            guard case .int(let reference) = id.referenceObject else { return false }
            return present.contains(reference)
        })
        let encoder = try StoreFileEncoder(plan: ModelPlan(model: ticket.model), metadata: ticket.metadata,
                                           nextReference: ticket.nextReference, commitSequence: ticket.commitSequence,
                                           dangling: dangling, nodes: { byEntity[$0] ?? [] })
        try DurableFile.replace(path: ticket.snapshotPath, newFileMode: ticket.fileMode) { sink in try encoder.write(to: sink) }
    }

    /// Ends a checkpoint whose snapshot was written (step 3 of 3, on the thread that saves,
    /// brief): the journal is replaced by the records appended since the ticket (copied to a
    /// new file, `fsync`, `rename`, directory `fsync`), or emptied when there are none.
    ///
    /// - Throws: ``JSONStoreError/checkpointRefused(path:reason:)`` for a ticket that is not the
    ///   checkpoint under way; an I/O error (the journal then keeps every record, which the
    ///   snapshot's `"commitSequence"` tells apart: nothing is lost or applied twice).
    public func finishCheckpoint(_ ticket: CheckpointTicket) throws {
        guard checkpointInFlight == ticket.number, ticket.snapshotPath == realPath else {
            throw JSONStoreError.checkpointRefused(path: path, reason: "the ticket is not the checkpoint under way")
        }
        checkpointInFlight = nil
        snapshotExists = true
        persistedMetadata = ticket.metadata
        keepHistory(journalPrefix: ticket.journalLength)
        if journal.length == ticket.journalLength {
            if journal.length > 0 {
                do { try journal.truncate(to: 0) } catch is JournalWriter.Missing { journal.forget() }
            }
        } else {
            do {
                try journal.keepTail(from: ticket.journalLength)
            } catch is JournalWriter.Missing {
                journal.forget()
                throw JSONStoreError.unsafeFile(path: journalPath, reason: "the journal was removed during the checkpoint; "
                                                + "the commits since it began are in memory only: checkpoint again")
            }
        }
    }

    /// Gives up a checkpoint whose snapshot could not be written; the next one may begin.
    public func abandonCheckpoint(_ ticket: CheckpointTicket) {
        if checkpointInFlight == ticket.number { checkpointInFlight = nil }
    }
}
