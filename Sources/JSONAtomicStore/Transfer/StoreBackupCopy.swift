import Foundation
import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// Copies a live JSON store, while its server saves, into a backup directory: the snapshot
/// file as it is (base, at its `commitSequence`), then the journal's and the history file's
/// records after it, up to the newest commit the server has published, then the manifest.
///
/// Why the copy is consistent: the snapshot file is never written in place (a checkpoint
/// writes a new file and renames it over the old one), so the open file is one whole
/// snapshot at one commit; records are whole lines with a checksum and a `seq`, appended and
/// `fdatasync`ed before the server publishes their commit; a checkpoint appends the records it
/// folds to the history file *before* it cuts the journal, and the journal is read before the
/// history file, so a checkpoint running meanwhile cannot hide a record from both reads. The
/// base and the run of records without a gap after it are therefore the store exactly as it
/// was after the run's last commit. When the run is empty but records above the base exist
/// (the store keeps no history and a checkpoint ran), the copy starts again.
public enum StoreBackupCopy {
    /// How many times a copy starts again before giving up.
    static let attempts = 5

    /// Copies the store at `storePath` into `directory` (created, mode 0700; it must not hold
    /// a file yet); `latestSequence` gives the newest commit the server has published (records
    /// above it are being written and are left out).
    ///
    /// - Returns: the manifest written.
    /// - Throws: ``BackupError`` (a directory that is not empty, a store never saved, records that
    ///   keep moving), ``JSONStoreError`` (I/O, a record that fails its checksum).
    public static func copy(storePath: String, to directory: String,
                            latestSequence: () -> Int64) throws -> BackupManifest {
        let realPath = try StorePath.resolve(storePath)
        try prepare(directory)
        for _ in 0..<attempts {
            if let manifest = try attempt(realPath: realPath, shown: storePath, directory: directory, latestSequence: latestSequence) {
                return manifest
            }
        }
        throw BackupError(path: storePath, reason: "checkpoints kept moving the records while they were copied "
                          + "(the store keeps no history file: run the server with --history-commits above 0); try again")
    }

    /// Creates `directory`, or accepts an empty one.
    static func prepare(_ directory: String) throws {
        guard directory.hasPrefix("/") else {
            throw BackupError(path: directory, reason: "the backup directory must be an absolute path (on the server's machine)")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw BackupError(path: directory, reason: "not a directory") }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            guard names.isEmpty else {
                throw BackupError(path: directory, reason: "the backup directory is not empty (it holds \(names.sorted().prefix(3).joined(separator: ", "))): "
                                  + "give a new or empty directory for each backup")
            }
            return
        }
        guard mkdir(directory, 0o700) == 0 else { throw JSONStoreError.io(path: directory, operation: "mkdir", errno: errno) }
    }

    /// One copy; nil when the records after the base could not be found (start again).
    private static func attempt(realPath: String, shown: String, directory: String,
                                latestSequence: () -> Int64) throws -> BackupManifest? {
        let snapshot = open(realPath, O_RDONLY | O_CLOEXEC)
        guard snapshot >= 0 else {
            if errno == ENOENT { throw BackupError(path: shown, reason: "the store has no snapshot file yet (it was never saved): nothing to back up") }
            throw JSONStoreError.io(path: shown, operation: "open", errno: errno)
        }
        defer { close(snapshot) }
        let base = try commitSequence(ofSnapshot: snapshot, path: shown)
        let snapshotFile = try copyFile(snapshot, to: path(directory, BackupManifest.snapshotName))

        var records = BackupRecords()
        try records.take(try BackupRecords.wholeLines(of: realPath + "-journal"), file: shown + "-journal")
        try records.take(try BackupRecords.wholeLines(of: realPath + "-history"), file: shown + "-history")
        let latest = latestSequence()
        let run = records.run(after: base).prefix { $0.sequence <= latest }
        if run.isEmpty, records.hasRecords(above: base), latest > base { return nil }

        var bytes = JournalFormat.header
        for record in run {
            bytes += record.line
            bytes.append(0x0A)
        }
        let recordsFile = try write(bytes, to: path(directory, BackupManifest.recordsName))
        let manifest = BackupManifest(sequence: run.last?.sequence ?? base, baseSequence: base, time: Self.now(),
                                      baseTime: records.bySequence[base]?.time, newestTime: run.last?.time ?? records.bySequence[base]?.time,
                                      files: [snapshotFile, recordsFile])
        var text = Array(manifest.json().jsonText.utf8)
        text.append(0x0A)
        _ = try write(text, to: path(directory, BackupManifest.fileName))
        try DurableFile.syncDirectory(directory)
        return manifest
    }

    static func path(_ directory: String, _ name: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent(name).path
    }

    static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }

    /// The `commitSequence` of a snapshot file (0 when absent), from its metadata, which comes
    /// before its objects (`docs/FILE_FORMAT.md`, "Deterministic output").
    static func commitSequence(ofSnapshot descriptor: Int32, path: String) throws -> Int64 {
        let head = try DurableFile.read(descriptor, count: 1 << 16, at: 0, path: path)
        let objects = head.firstRange(of: Array(#""objects":"#.utf8))?.lowerBound ?? head.endIndex
        guard let key = head[..<objects].firstRange(of: Array(#""commitSequence":"#.utf8)) else { return 0 }
        let digits = head[key.upperBound...].prefix { (0x30...0x39).contains($0) }
        guard let value = Int64(String(decoding: digits, as: UTF8.self)) else {
            throw BackupError(path: path, reason: "the snapshot's commitSequence cannot be read")
        }
        return value
    }

    /// Copies the open file to `target` (created; fsync), with its size and CRC-32C.
    static func copyFile(_ descriptor: Int32, to target: String) throws -> BackupManifest.File {
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw JSONStoreError.io(path: target, operation: "create", errno: errno) }
        defer { close(output) }
        var crc: UInt32 = 0xFFFF_FFFF
        var offset = 0
        var buffer = [UInt8](repeating: 0, count: 4 << 20)
        while true {
            let count = try buffer.withUnsafeMutableBytes { raw -> Int in
                while true {
                    let read = pread(descriptor, raw.baseAddress, raw.count, off_t(offset))
                    if read >= 0 { return read }
                    if errno != EINTR { throw JSONStoreError.io(path: target, operation: "read", errno: errno) }
                }
            }
            if count == 0 { break }
            try buffer.withUnsafeBytes { raw in
                let chunk = UnsafeRawBufferPointer(rebasing: raw[..<count])
                crc = CRC32C.update(crc, chunk)
                try DurableFile.writeAll(output, chunk, path: target)
            }
            offset += count
        }
        guard fsync(output) == 0 else { throw JSONStoreError.io(path: target, operation: "fsync", errno: errno) }
        return BackupManifest.File(name: URL(fileURLWithPath: target).lastPathComponent, bytes: Int64(offset),
                                   crc32c: String(decoding: JournalFormat.hex(~crc), as: UTF8.self))
    }

    /// Writes `bytes` to `target` (created; fsync), with its size and CRC-32C.
    static func write(_ bytes: [UInt8], to target: String) throws -> BackupManifest.File {
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw JSONStoreError.io(path: target, operation: "create", errno: errno) }
        defer { close(output) }
        try bytes.withUnsafeBytes { try DurableFile.writeAll(output, $0, path: target) }
        guard fsync(output) == 0 else { throw JSONStoreError.io(path: target, operation: "fsync", errno: errno) }
        return BackupManifest.File(name: URL(fileURLWithPath: target).lastPathComponent, bytes: Int64(bytes.count),
                                   crc32c: String(decoding: JournalFormat.hex(CRC32C.checksum(bytes)), as: UTF8.self))
    }

    /// The size and CRC-32C of the file at `path`.
    static func measure(_ path: String) throws -> (bytes: Int64, crc32c: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw JSONStoreError.io(path: path, operation: "open", errno: errno) }
        defer { close(descriptor) }
        var crc: UInt32 = 0xFFFF_FFFF
        var offset = 0
        var buffer = [UInt8](repeating: 0, count: 4 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw JSONStoreError.io(path: path, operation: "read", errno: errno)
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { crc = CRC32C.update(crc, UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            offset += count
        }
        return (Int64(offset), String(decoding: JournalFormat.hex(~crc), as: UTF8.self))
    }
}
