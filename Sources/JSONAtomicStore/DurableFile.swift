import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Replaces a file atomically and durably: write a temporary file in the same directory,
/// `fsync` it, `rename` it over the file, `fsync` the directory. A crash at any moment
/// leaves the old file or the new one, whole; an error leaves the old file untouched and no
/// temporary file behind.
enum DurableFile {
    /// Replaces the file at `path` with the bytes `produce` hands to its sink.
    static func replace(path: String, produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let temporary = temporaryPath(for: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw JSONStoreError.io(path: temporary, operation: "open", errno: errno) }
        var isOpen = true
        var renamed = false
        defer {
            if isOpen { close(descriptor) }
            if !renamed { unlink(temporary) }
        }
        // Keep the permissions of the file being replaced.
        var existing = stat()
        if stat(path, &existing) == 0 { _ = fchmod(descriptor, existing.st_mode & 0o7777) }

        try produce { chunk in try writeAll(descriptor, chunk, path: temporary) }
        guard fsync(descriptor) == 0 else { throw JSONStoreError.io(path: temporary, operation: "fsync", errno: errno) }
        isOpen = false
        guard close(descriptor) == 0 else { throw JSONStoreError.io(path: temporary, operation: "close", errno: errno) }
        guard rename(temporary, path) == 0 else { throw JSONStoreError.io(path: path, operation: "rename", errno: errno) }
        renamed = true
        try syncDirectory(directory)
    }

    /// The temporary file a save of this process writes before renaming it over `path`.
    static func temporaryPath(for path: String, processID: Int32 = getpid()) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp-\(processID)").path
    }

    /// Removes temporary files that saves of `path` left behind when their process died.
    /// Call it only while holding the store's lock: then no other process is writing one.
    static func removeLeftovers(of path: String) {
        let url = URL(fileURLWithPath: path)
        let prefix = ".\(url.lastPathComponent).tmp-"
        let directory = url.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) && Int32(name.dropFirst(prefix.count)) != nil {
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    /// Writes all of `bytes`, retrying short writes and interruptions.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        guard var pointer = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(descriptor, pointer, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw JSONStoreError.io(path: path, operation: "write", errno: errno)
            }
            pointer += written
            remaining -= written
        }
    }

    /// Makes a rename in `directory` durable.
    static func syncDirectory(_ directory: String) throws {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw JSONStoreError.io(path: directory, operation: "open directory", errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw JSONStoreError.io(path: directory, operation: "fsync directory", errno: errno) }
    }
}
