import Foundation
import GraphCore

extension JSONAtomicStore {
    /// The name of the store option giving how many journal records checkpoints keep in the
    /// history file (`<store file>-history`) for readers of the store's history: `"0"` (the
    /// default) keeps none.
    public static let historyRecordsOption = JournaledStoreOptions.historyRecords

    /// The path of the history file, as named in messages: ``path`` + `"-history"`.
    public var historyPath: String { path + "-history" }

    /// Reads ``historyRecordsOption``: 0 when absent.
    static func historyRecordLimit(from options: StoreOptions) throws -> Int {
        guard let text = options.values[historyRecordsOption] else { return 0 }
        guard let count = Int(text), count >= 0 else {
            throw JSONStoreError.invalidOption(name: historyRecordsOption, value: text,
                                               reason: "expected a number of records (0 or more; 0 keeps none)")
        }
        return count
    }

    /// The store's recent commits as journal records (`docs/FILE_FORMAT.md`, "Records"), oldest
    /// first: the history file's, then the journal's. A crash during a checkpoint may leave a
    /// record in both: a reader keeps one record per `seq`.
    public func historyRecordBytes() throws -> [UInt8] {
        let kept = historyLimit > 0 ? try history.bytes() : []
        return kept + (try journal.bytes(from: 0))
    }

    /// At the end of a checkpoint, before the journal is cut: its first `length` bytes (the
    /// records the snapshot now holds) go to the history file, which keeps the newest
    /// ``historyRecordsOption`` records. A failure loses only history, never a commit: it is
    /// reported in ``lastCheckpointError``.
    func keepHistory(journalPrefix length: Int) {
        guard historyLimit > 0, length > 0 else { return }
        do {
            let folded = try journal.bytes(from: 0).prefix(length)
            _ = try history.append(Array(folded), keeping: historyLimit)
        } catch {
            lastCheckpointError = error
        }
    }

    var history: HistoryFile { HistoryFile(path: realPath + "-history", newFileMode: newFileMode) }
}
