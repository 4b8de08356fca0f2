import Foundation
import GraphCore

/// A checkpoint begun with ``JSONAtomicStore/beginCheckpoint()``: what the new snapshot must
/// hold (the commit it stops at, the metadata, the model) and where the journal stood.
///
/// A value: pass it to ``JSONAtomicStore/writeSnapshot(_:objects:)`` on any thread, then back
/// to ``JSONAtomicStore/finishCheckpoint(_:)`` on the store's own.
public struct CheckpointTicket: Sendable {
    /// The last commit the snapshot holds: the objects given to `writeSnapshot` must be the
    /// state right after this commit.
    public let commitSequence: Int64
    /// Which checkpoint of the store this is.
    let number: Int
    /// The journal's length when the checkpoint began: the records after it stay.
    let journalLength: Int
    /// Where the snapshot goes (the store's real path), and the mode of a new file.
    let snapshotPath: String
    let fileMode: mode_t
    let model: ObjectModel
    let metadata: StoreMetadata
    let nextReference: Int64
    /// References of objects deleted since the store was opened (left out of relationships).
    let deletedReferences: Set<Int64>
}
