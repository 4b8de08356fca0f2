import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Appends records to a store's journal, `<store file>-journal`, each made durable with
/// `fdatasync` before the append returns.
///
/// The file is created at the first append (`O_CREAT|O_EXCL|O_NOFOLLOW`, with the store's
/// file mode, then the directory is synced so that the new name survives a power loss) and
/// must be a regular file with one link, like the store file. A failed append truncates the
/// file back to its last good length, so that the journal is as it was.
///
/// An empty journal gets the version 2 header (``JournalFormat/header``) before its first
/// record, and every record its checksum. A version 1 journal (written before checksums) gets
/// version 1 records until a checkpoint replaces it: ``keepTail(from:)`` writes the header and
/// the kept records with their checksums.
final class JournalWriter {
    let path: String
    private let newFileMode: mode_t
    private var descriptor: Int32 = -1
    /// The length of the journal: the end of its last good record.
    var length: Int
    /// The format of the records in the file (of the next one when the file is empty).
    var format = JournalFormat.version2

    /// Whether the next record must carry its checksum (``JournalFormat/seal(_:)``).
    var writesChecksums: Bool { length == 0 || format == .version2 }

    /// The journal is gone from its path (removed, or its directory removed) although records
    /// were written to it: the store must write its snapshot whole (a checkpoint) instead.
    struct Missing: Error {}

    /// For tests: the next append writes its bytes, then fails as a full disk would.
    var failNextAppendAfterWriting = false
    /// How many appends ran their `whileSyncing` while ``FileSyncThread`` synced (for tests).
    private(set) var syncsBeside = 0
    /// For tests: the next append's `fdatasync` runs, then reports `EIO` as a failing disk would
    /// (after `whileSyncing` ran).
    var failNextSync = false

    /// A writer for the journal at `path` whose good records end at `length`.
    init(path: String, length: Int, newFileMode: mode_t) {
        self.path = path
        self.length = length
        self.newFileMode = newFileMode
    }

    deinit { close() }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Forgets a journal that is gone: the next append starts a new one.
    func forget() {
        close()
        length = 0
    }

    /// Opens (or creates) the file, refusing a symlink, a hard link or a non-regular file.
    /// An open file must still be the one at `path`: a journal moved, replaced or removed (with
    /// its directory) since is refused, so that no save is acknowledged into a file that is no
    /// longer the store's.
    private func open() throws -> Int32 {
        if descriptor >= 0 {
            var opened = stat(), current = stat()
            if lstat(path, &current) != 0, errno == ENOENT { throw Missing() }
            guard fstat(descriptor, &opened) == 0, lstat(path, &current) == 0,
                  opened.st_dev == current.st_dev, opened.st_ino == current.st_ino else {
                throw JSONStoreError.unsafeFile(
                    path: path, reason: "the journal was moved, replaced or removed since the store was opened; "
                        + "saves are refused until it is back, so that none goes to a file that is not the store's")
            }
            return descriptor
        }
        var created = false
        var handle = Glibc.open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        if handle < 0, errno == ENOENT, length > 0 { throw Missing() }
        if handle < 0, errno == ENOENT {
            handle = Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, newFileMode)
            created = handle >= 0
            if created { _ = fchmod(handle, newFileMode) }
        }
        guard handle >= 0 else {
            let code = errno
            if code == ELOOP { throw JSONStoreError.unsafeFile(path: path, reason: "the journal is a symbolic link") }
            throw JSONStoreError.io(path: path, operation: "open", errno: code)
        }
        var info = stat()
        if fstat(handle, &info) != 0 || (info.st_mode & S_IFMT) != S_IFREG || info.st_nlink != 1 {
            Glibc.close(handle)
            throw JSONStoreError.unsafeFile(path: path, reason: "the journal must be a regular file with one link")
        }
        if created {
            do {
                try DurableFile.syncDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
            } catch {
                Glibc.close(handle)
                throw error
            }
        }
        descriptor = handle
        return handle
    }

    /// Cuts the file to `length` (a torn last record found when the store was opened).
    func truncate(to newLength: Int) throws {
        let handle = try open()
        guard ftruncate(handle, off_t(newLength)) == 0 else { throw JSONStoreError.io(path: path, operation: "truncate", errno: errno) }
        guard fdatasync(handle) == 0 else { throw JSONStoreError.io(path: path, operation: "fdatasync", errno: errno) }
        length = newLength
    }

    /// Writes `record` at the end of the last good record and makes it durable; on failure
    /// the file is cut back to where it was. `whileSyncing` runs on this thread while
    /// ``FileSyncThread`` waits for the disk, when that thread is free (else it is not run: the
    /// caller runs it after).
    func append(_ records: [UInt8], whileSyncing: (() -> Void)? = nil) throws {
        let handle = try open()
        let record = length == 0 ? JournalFormat.header + records : records
        do {
            var written = 0
            try record.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                while written < bytes.count {
                    let count = pwrite(handle, base + written, bytes.count - written, off_t(length + written))
                    if count < 0 {
                        if errno == EINTR { continue }
                        throw JSONStoreError.io(path: path, operation: "write", errno: errno)
                    }
                    written += count
                }
            }
            if failNextAppendAfterWriting {
                failNextAppendAfterWriting = false
                throw JSONStoreError.io(path: path, operation: "write", errno: ENOSPC)
            }
            var code: Int32
            let syncStart = ContinuousClock.now
            if let whileSyncing, let ticket = FileSyncThread.shared.start(handle) {
                whileSyncing()
                code = ticket.wait()
                syncsBeside += 1
            } else {
                code = fdatasync(handle) == 0 ? 0 : errno
            }
            JournalSyncTimes.record(since: syncStart)
            if failNextSync {
                failNextSync = false
                code = EIO
            }
            guard code == 0 else { throw JSONStoreError.io(path: path, operation: "fdatasync", errno: code) }
        } catch {
            _ = ftruncate(handle, off_t(length))
            _ = fdatasync(handle)
            throw error
        }
        if length == 0 { format = .version2 }
        length += record.count
    }

    /// The bytes of the journal from `offset` to its end.
    func bytes(from offset: Int) throws -> [UInt8] {
        let handle = try open()
        guard offset < length else { return [] }
        let result = try DurableFile.read(handle, count: length - offset, at: offset, path: path)
        guard result.count == length - offset else {
            throw JSONStoreError.io(path: path, operation: "read (the journal is shorter than expected)", errno: EIO)
        }
        return result
    }

    /// Replaces the journal, crash-safely, by its records after `offset` (a checkpoint
    /// holds everything before): the tail goes to a new file (fsync, rename, directory fsync).
    /// The file is written in version 2: the header, then the records (a version 1 journal's
    /// get their checksums).
    func keepTail(from offset: Int) throws {
        let tail = JournalFormat.header + Self.records(try bytes(from: offset)[...], format: format)
        close()
        try DurableFile.replace(path: path, newFileMode: newFileMode) { sink in
            try tail.withUnsafeBytes { try sink($0) }
        }
        length = tail.count
        format = .version2
    }

    /// The records of `bytes` (whole lines of a file in `format`, from a record's start or the
    /// file's) in version 2: without the header, each with its checksum.
    static func records(_ bytes: ArraySlice<UInt8>, format: JournalFormat) -> [UInt8] {
        switch format {
        case .version2:
            return Array(bytes.starts(with: JournalFormat.header) ? bytes.dropFirst(JournalFormat.header.count) : bytes)
        case .version1:
            return JournalFormat.sealed(lines: bytes)
        }
    }
}
