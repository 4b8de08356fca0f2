import Foundation
import GraphCore

extension JSONAtomicStore {
    /// Appends one journal record (``save(changes:)``) of what the save changed (one per
    /// ``CommitPart`` when its metadata holds several) and makes it durable
    /// (`fdatasync`); the snapshot is not rewritten. A new store first gets its snapshot file
    /// (without objects). A save after a change of ``PersistentStore/metadata`` (which records
    /// do not carry) checkpoints instead. When the journal has passed
    /// ``journalCheckpointBytesOption``, the store then checkpoints.
    ///
    /// - Throws: ``JSONStoreError/readOnly(path:)``, ``JSONStoreError/loadFailed(path:)``, an
    ///   I/O error (the journal is left as it was, and the nodes are rolled back).
    /// Returns the numbers of the records (one, when the save checkpointed instead).
    func appendCommit(_ changes: AtomicStoreChanges) throws -> [Int64] {
        if options.isReadOnly { throw JSONStoreError.readOnly(path: path) }
        if loadFailed { throw JSONStoreError.loadFailed(path: path) }
        let parts = changes.metadata.parts
        let author = changes.metadata.soleAuthor
        let time = changes.metadata.time ?? Date()
        let records = Int64(max(1, parts.count))
        guard commitSequence <= Int64.max - records else { throw JSONStoreError.sequenceExhausted(path: path) }
        if !snapshotExists {
            try writeEmptySnapshot()
        } else if persistedMetadata != metadata, checkpointInFlight == nil {
            return [try checkpointInstead()]
        }
        let plan = try plan()
        let dangling = DanglingFilter(deleted: deletedReferences.references,
                                      exists: { [unowned self] in self.cacheNode(for: $0) != nil })
        var encoder = JournalRecordEncoder(plan: plan, dangling: dangling)
        encoder.checksum = journal.writesChecksums
        var record: [UInt8] = []
        if parts.count > 1 {
            for (index, share) in changes.splitByParts().enumerated() {
                record += try encoder.record(sequence: commitSequence + 1 + Int64(index), time: time,
                                             author: parts[index].author, changes: share)
            }
        } else {
            record = try encoder.record(sequence: commitSequence + 1, time: time, author: author, changes: changes)
        }
        do {
            try journal.append(record, whileSyncing: changes.whileWriting)
        } catch is JournalWriter.Missing {
            // The journal was removed (with its directory, say) after records were written to
            // it: only the nodes hold them now. The snapshot is written whole instead.
            return [try checkpointInstead()]
        }
        let first = commitSequence + 1
        commitSequence += records
        if checkpointThreshold > 0, journal.length >= checkpointThreshold, checkpointInFlight == nil {
            do { try checkpoint() } catch { lastCheckpointError = error }
        }
        return Array(first...commitSequence)
    }

    /// Makes the save durable by a checkpoint (the whole snapshot) instead of a record; returns its number.
    private func checkpointInstead() throws -> Int64 {
        commitSequence += 1
        do {
            try checkpoint()
        } catch {
            commitSequence -= 1
            throw error
        }
        return commitSequence
    }

    /// The snapshot of a new store: its metadata and no objects (the journal holds the rest).
    private func writeEmptySnapshot() throws {
        let encoder = try StoreFileEncoder(plan: try plan(), metadata: metadata, nextReference: 1,
                                           dangling: DanglingFilter(deleted: [], exists: { _ in true }), nodes: { _ in [] })
        try DurableFile.replace(path: realPath, newFileMode: newFileMode) { sink in try encoder.write(to: sink) }
        snapshotExists = true
        persistedMetadata = metadata
    }
}
