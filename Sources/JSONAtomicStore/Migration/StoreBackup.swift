import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes the backup a migration keeps beside the store: a durable copy, made under a
/// temporary name of the store's own saves (which a later open of the store removes if the
/// process dies) and linked to the backup's name, which fails rather than replace a file.
enum StoreBackup {
    /// Copies `storePath` to `backupPath`, durably. A backup that is already an exact copy of
    /// the store (from a migration interrupted after writing it) is kept; any other file by
    /// that name is an error, never overwritten.
    static func write(copyOf storePath: String, to backupPath: String) throws {
        let bytes = try read(storePath)
        if FileManager.default.fileExists(atPath: backupPath) || isSymlink(backupPath) {
            guard !isSymlink(backupPath), (try? read(backupPath)) == bytes else {
                throw StoreMigrationError.backupExists(path: backupPath)
            }
            return
        }
        let directory = URL(fileURLWithPath: storePath).deletingLastPathComponent().path
        let (temporary, descriptor) = try DurableFile.createTemporary(for: storePath)
        var isOpen = true
        defer {
            if isOpen { close(descriptor) }
            unlink(temporary)
        }
        var info = stat()
        if stat(storePath, &info) == 0 { _ = fchmod(descriptor, info.st_mode & 0o7777) }
        try bytes.withUnsafeBytes { try DurableFile.writeAll(descriptor, $0, path: temporary) }
        guard fsync(descriptor) == 0 else { throw JSONStoreError.io(path: temporary, operation: "fsync", errno: errno) }
        isOpen = false
        guard close(descriptor) == 0 else { throw JSONStoreError.io(path: temporary, operation: "close", errno: errno) }
        guard link(temporary, backupPath) == 0 else {
            if errno == EEXIST { throw StoreMigrationError.backupExists(path: backupPath) }
            throw JSONStoreError.io(path: backupPath, operation: "link", errno: errno)
        }
        try DurableFile.syncDirectory(directory)
    }

    private static func isSymlink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    private static func read(_ path: String) throws -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw JSONStoreError.io(path: path, operation: "open", errno: errno) }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw JSONStoreError.io(path: path, operation: "read", errno: errno)
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }
}
