import Foundation
import GraphCore
#if canImport(Glibc)
import Glibc
#endif

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
    /// first, without the files' headers: the history file's, then the journal's, each with its
    /// checksum. A crash during a checkpoint may leave a record in both: a reader keeps one
    /// record per `seq`.
    ///
    /// - Throws: ``JSONStoreError/invalidJournal(file:offset:reason:)`` when a record of the
    ///   history file fails its checksum or the schema; ``JSONStoreError/unsafeFile(path:reason:)``
    ///   when the history file is a symbolic link or not a regular file.
    public func historyRecordBytes() throws -> [UInt8] {
        var kept: [UInt8] = []
        if historyLimit > 0 {
            let file = try history.bytes()
            try verifyHistory(file)
            kept = JournalWriter.records(file[...], format: HistoryFile.format(of: file))
        }
        let journaled = try journal.bytes(from: 0)
        return kept + JournalWriter.records(journaled[...], format: journal.format)
    }

    /// The error that kept the last checkpoint's records out of the history file (nil when they
    /// went in, or history is off). The checkpoint itself succeeded: this loses history (what
    /// `changes` can answer from), never a commit.
    public var lastHistoryError: (any Error)? { historyError }

    /// At the end of a checkpoint, before the journal is cut: its first `length` bytes (the
    /// records the snapshot now holds) go to the history file, which keeps the newest
    /// ``historyRecordsOption`` records. A failure loses only history, never a commit: it is
    /// reported in ``lastHistoryError`` (and ``lastCheckpointError``).
    func keepHistory(journalPrefix length: Int) {
        guard historyLimit > 0, length > 0 else { return }
        do {
            let folded = JournalWriter.records(try journal.bytes(from: 0).prefix(length), format: journal.format)
            let existing = try history.bytes()
            try verifyHistory(existing)
            _ = try history.append(folded, to: existing, keeping: historyLimit)
            historyError = nil
        } catch {
            historyError = JSONStoreError.historyNotKept(path: historyPath, reason: "\(error)")
            lastCheckpointError = historyError
        }
    }

    /// Checks the history file as a checkpoint reads it (whatever ``historyRecordsOption``
    /// says): its records' checksums and schema. Returns how many records it holds and its
    /// format version (1 or 2), or nil when there is no history file. A torn last line is not
    /// counted (the next checkpoint's rewrite drops it).
    ///
    /// - Throws: ``JSONStoreError/invalidJournal(file:offset:reason:)`` naming the byte offset of
    ///   the first record that fails; ``JSONStoreError/unsafeFile(path:reason:)``.
    public func checkHistoryFile() throws -> (records: Int, formatVersion: Int)? {
        guard let (descriptor, _) = try DurableFile.openRegularFile(history.path, shown: historyPath, named: "the history file") else {
            return nil
        }
        close(descriptor)
        let file = try history.bytes()
        try verifyHistory(file)
        let format = HistoryFile.format(of: file)
        let lines = file.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        return format == .version2 ? (max(lines - 1, 0), 2) : (lines, 1)
    }

    /// Checks the records of the history file's whole lines `bytes` as the journal's are
    /// checked (checksums, schema), without the sequence's growth by 1 (history may have gaps).
    func verifyHistory(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        let decoder = StoreFileDecoder(file: historyPath, plan: try plan(), store: self)
        let reader = JournalReader(path: historyPath, decoder: decoder, replay: JournalReplay(), baseSequence: 0,
                                   checksStart: false, checksSequence: false)
        let piece = bytes.withUnsafeBytes { reader.read(piece: $0, at: 0) }
        if let error = piece.error { throw error }
    }

    var history: HistoryFile { HistoryFile(path: realPath + "-history", newFileMode: newFileMode) }
}
