import GraphCore

/// The JSON store as a ``JournaledStore``: its checkpoints in three steps (``beginCheckpoint()``,
/// ``writeSnapshot(_:objects:)``, ``finishCheckpoint(_:)``) behind the store-generic names.
extension JSONAtomicStore: JournaledStore {
    public func beginSnapshotCheckpoint() throws -> SnapshotCheckpoint {
        let ticket = try beginCheckpoint()
        return SnapshotCheckpoint(commitSequence: ticket.commitSequence, ticket: ticket) { objects in
            try JSONAtomicStore.writeSnapshot(ticket, objects: objects)
        }
    }

    public func finishCheckpoint(_ checkpoint: SnapshotCheckpoint) throws {
        guard let ticket = checkpoint.ticket as? CheckpointTicket else {
            throw JSONStoreError.checkpointRefused(path: path, reason: "the checkpoint is not one of this store's")
        }
        try finishCheckpoint(ticket)
    }

    public func abandonCheckpoint(_ checkpoint: SnapshotCheckpoint) {
        if let ticket = checkpoint.ticket as? CheckpointTicket { abandonCheckpoint(ticket) }
    }
}
