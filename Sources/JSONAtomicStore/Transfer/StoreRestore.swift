import Foundation
import GraphCore
import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// Makes a new store from a backup directory, as it was right after one of the commits the
/// backup reaches: the base snapshot, then the backup's records up to that commit, replayed
/// and checked by the store's own loader (as an opening replays a journal) and folded into
/// a new snapshot. It reads the backup's base and the records it replays, never more.
public enum StoreRestore {
    /// Which commit to restore.
    public enum Target: Sendable {
        /// The backup's newest commit (its manifest's `seq`).
        case newest
        /// This commit.
        case sequence(Int64)
        /// The last commit made at or before this time.
        case time(Date)
    }

    /// What a restore made.
    public struct Outcome: Sendable {
        public let sequence: Int64
        public let objects: Int
        /// How many records were replayed onto the base.
        public let replayed: Int
    }

    /// Restores the backup in `directory` into the new store file `storePath` (which must
    /// not exist) for `model`; checkpoints keep the newest `historyRecords` replayed records in
    /// the new store's history file.
    ///
    /// - Throws: ``BackupError`` (no manifest, a file of the backup missing or damaged, a target
    ///   the backup cannot reach, naming the oldest and newest commits it can, a store that
    ///   exists); ``JSONStoreError`` when the restored store does not load (nothing is left behind).
    public static func restore(from directory: String, to storePath: String, model: ObjectModel, target: Target,
                               historyRecords: Int) throws -> Outcome {
        let manifest = try BackupManifest.read(directory: directory)
        for file in manifest.files {
            let path = StoreBackupCopy.path(directory, file.name)
            guard FileManager.default.fileExists(atPath: path) else { throw BackupError(path: path, reason: "missing from the backup") }
            let measured = try StoreBackupCopy.measure(path)
            guard measured.bytes == file.bytes, measured.crc32c == file.crc32c else {
                throw BackupError(path: path, reason: "damaged: the manifest says \(file.bytes) bytes with CRC-32C \(file.crc32c), "
                                  + "the file has \(measured.bytes) bytes with CRC-32C \(measured.crc32c)", isDamage: true)
            }
        }
        let recordsPath = StoreBackupCopy.path(directory, BackupManifest.recordsName)
        var records = BackupRecords()
        try records.take(try BackupRecords.wholeLines(of: recordsPath), file: recordsPath)
        let run = records.run(after: manifest.baseSequence).prefix { $0.sequence <= manifest.sequence }
        guard (run.last?.sequence ?? manifest.baseSequence) == manifest.sequence else {
            throw BackupError(path: recordsPath, reason: "holds commits up to \(run.last?.sequence ?? manifest.baseSequence), "
                              + "but the manifest says \(manifest.sequence)", isDamage: true)
        }
        let sequence = try chosen(target, manifest: manifest, run: Array(run), directory: directory)
        let replayed = Array(run.prefix { $0.sequence <= sequence })

        let realPath = try StorePath.resolve(storePath)
        for path in [realPath, realPath + "-journal", realPath + "-history"] where FileManager.default.fileExists(atPath: path) {
            throw BackupError(path: path, reason: "exists: restore makes a new store; give a path where no store is, "
                              + "then replace the old store with it while no server runs on it")
        }
        var finished = false
        defer {
            if !finished { for path in [realPath, realPath + "-journal", realPath + "-history"] { unlink(path) } }
        }
        let snapshot = open(StoreBackupCopy.path(directory, BackupManifest.snapshotName), O_RDONLY | O_CLOEXEC)
        guard snapshot >= 0 else { throw JSONStoreError.io(path: directory, operation: "open the snapshot", errno: errno) }
        defer { close(snapshot) }
        _ = try StoreBackupCopy.copyFile(snapshot, to: realPath)
        var journal = JournalFormat.header
        for record in replayed {
            journal += record.line
            journal.append(0x0A)
        }
        _ = try StoreBackupCopy.write(journal, to: realPath + "-journal")
        try DurableFile.syncDirectory(URL(fileURLWithPath: realPath).deletingLastPathComponent().path)

        let coordinator = StoreCoordinator(model: model)
        let options = StoreOptions(values: [JSONAtomicStore.historyRecordsOption: String(historyRecords),
                                            AtomicStore.fetchIndexesOption: AtomicStore.uniquenessIndexesOnly])
        let store = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: URL(fileURLWithPath: storePath),
                                                       options: options)
        defer { coordinator.remove(store) }
        guard let json = store as? JSONAtomicStore else { throw BackupError(path: storePath, reason: "not a JSON store") }
        guard json.commitSequence == sequence else {
            throw BackupError(path: storePath, reason: "the restored store is at commit \(json.commitSequence), not \(sequence)")
        }
        try json.checkpoint()
        finished = true
        return Outcome(sequence: sequence, objects: json.cacheNodeCount, replayed: replayed.count)
    }

    /// The commit `target` names, or an error naming the oldest and newest the backup reaches.
    static func chosen(_ target: Target, manifest: BackupManifest, run: [BackupRecords.Record], directory: String) throws -> Int64 {
        let oldest = manifest.baseSequence, newest = manifest.sequence
        let reach = "this backup reaches commits \(oldest) (\(manifest.baseTime ?? "time not recorded")) to \(newest) (\(manifest.newestTime ?? "time not recorded"))"
        switch target {
        case .newest:
            return newest
        case .sequence(let sequence):
            guard (oldest...newest).contains(sequence) else {
                throw BackupError(path: manifest.fileName(in: directory), reason: "cannot restore commit \(sequence): \(reach)")
            }
            return sequence
        case .time(let time):
            var chosen: Int64?
            if let baseTime = manifest.baseTime.flatMap(parseTime), baseTime <= time { chosen = oldest }
            for record in run {
                guard let recordTime = parseTime(record.time) else { continue }
                if recordTime <= time { chosen = record.sequence } else { break }
            }
            guard let chosen else {
                throw BackupError(path: manifest.fileName(in: directory), reason: "cannot restore to \(formatTime(time)): no commit of the backup was made at or before it; \(reach)")
            }
            return chosen
        }
    }

    static func parseTime(_ text: String) -> Date? {
        var copy = text
        return copy.withUTF8 { bytes -> Date? in
            if case .date(let date)? = ValueForm.value(string: UnsafeRawBufferPointer(bytes), as: .date) { return date }
            return nil
        }
    }

    static func formatTime(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

extension BackupManifest {
    /// The manifest's name, for messages.
    func fileName(in directory: String) -> String { directory.isEmpty ? Self.fileName : StoreBackupCopy.path(directory, Self.fileName) }
}
