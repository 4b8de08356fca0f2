import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Replaces a file atomically and durably: write a temporary file in the same directory,
/// `fsync` it, `rename` it over the file, `fsync` the directory. A crash at any moment
/// leaves the old file or the new one, whole; an error leaves the old file untouched and no
/// temporary file behind.
///
/// The temporary file has an unpredictable name (`.<file>.tmp-` and 16 random hex digits)
/// and is created with `O_CREAT|O_EXCL|O_NOFOLLOW`: a file or symlink planted at that name
/// by someone else is never written through. It gets the mode (and, where the process may
/// set it, the owner and group) of the file it replaces, or `newFileMode` for a new file.
enum DurableFile {
    /// The mode of a new store file unless an option says otherwise: owner only.
    static let defaultMode: mode_t = 0o600

    /// Replaces the file at `path` with the bytes `produce` hands to its sink. `path` should
    /// be a real path (no symlink in it): a symlink there would be replaced by a file.
    /// `check`, when given, reads the complete temporary file (by its path) before the rename
    /// and throws to leave the old file in place.
    static func replace(path: String, newFileMode: mode_t = defaultMode, check: ((String) throws -> Void)? = nil,
                        produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let (temporary, descriptor) = try createTemporary(for: path)
        var isOpen = true
        var renamed = false
        defer {
            if isOpen { close(descriptor) }
            if !renamed { unlink(temporary) }
        }
        // Keep the permissions and owner of the file being replaced.
        var existing = stat()
        if lstat(path, &existing) == 0, (existing.st_mode & S_IFMT) == S_IFREG {
            _ = fchmod(descriptor, existing.st_mode & 0o7777)
            if existing.st_uid != geteuid() || existing.st_gid != getegid() {
                // Allowed to root, or to the owner for a group it belongs to; else the new
                // file stays this process's own, which is all it can make.
                _ = fchown(descriptor, existing.st_uid, existing.st_gid)
                _ = fchmod(descriptor, existing.st_mode & 0o7777)
            }
        } else {
            _ = fchmod(descriptor, newFileMode)
        }

        try produce { chunk in try writeAll(descriptor, chunk, path: temporary) }
        guard fsync(descriptor) == 0 else { throw JSONStoreError.io(path: temporary, operation: "fsync", errno: errno) }
        isOpen = false
        guard close(descriptor) == 0 else { throw JSONStoreError.io(path: temporary, operation: "close", errno: errno) }
        try check?(temporary)
        guard rename(temporary, path) == 0 else { throw JSONStoreError.io(path: path, operation: "rename", errno: errno) }
        renamed = true
        try syncDirectory(directory)
    }

    /// The prefix of the temporary files of saves of `path`, in its directory.
    static func temporaryPrefix(for path: String) -> String {
        ".\(URL(fileURLWithPath: path).lastPathComponent).tmp-"
    }

    /// Creates a new temporary file beside `path`, mode 0600, with a random name; retries
    /// the (unlikely) case of a name already taken.
    static func createTemporary(for path: String) throws -> (path: String, descriptor: Int32) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        var generator = SystemRandomNumberGenerator()
        var attempts = 0
        while true {
            let suffix = String(generator.next() as UInt64, radix: 16)
            let name = temporaryPrefix(for: path) + String(repeating: "0", count: 16 - suffix.count) + suffix
            let temporary = directory.appendingPathComponent(name).path
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, defaultMode)
            if descriptor >= 0 { return (temporary, descriptor) }
            let code = errno
            attempts += 1
            if code == EINTR || (code == EEXIST && attempts < 16) { continue }
            throw JSONStoreError.io(path: temporary, operation: "create", errno: code)
        }
    }

    /// Whether `name` is the name of a temporary file of a save of `path`: the prefix, then
    /// 16 hex digits (or, from older versions, a decimal process ID).
    static func isTemporaryName(_ name: String, of path: String) -> Bool {
        let prefix = temporaryPrefix(for: path)
        guard name.hasPrefix(prefix) else { return false }
        let suffix = name.utf8.dropFirst(prefix.utf8.count)
        guard !suffix.isEmpty, suffix.count <= 16 else { return false }
        let isHex = suffix.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        return isHex && (suffix.count == 16 || suffix.allSatisfy { (0x30...0x39).contains($0) })
    }

    /// Removes temporary files that saves of `path` left behind when their process died.
    /// Call it only while holding the store's lock: then no other process is writing one.
    /// Only regular files (or symlinks, which are removed, not followed) by the exact name
    /// pattern are removed.
    static func removeLeftovers(of path: String) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where isTemporaryName(name, of: path) {
            let leftover = directory.appendingPathComponent(name).path
            var info = stat()
            guard lstat(leftover, &info) == 0 else { continue }
            let type = info.st_mode & S_IFMT
            if type == S_IFREG || type == S_IFLNK { unlink(leftover) }
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

    /// Opens an existing file for reading, without following a symbolic link, and checks that
    /// it is a regular file: its descriptor (the caller closes it) and size, or nil when there is
    /// no such file. Errors name the file as `shown` and call it `name` ("the journal").
    static func openRegularFile(_ path: String, shown: String, named name: String) throws -> (descriptor: Int32, size: Int)? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw JSONStoreError.unsafeFile(path: shown, reason: "\(name) is a symbolic link") }
            throw JSONStoreError.io(path: shown, operation: "open", errno: code)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw JSONStoreError.unsafeFile(path: shown, reason: "\(name) is not a regular file")
        }
        return (descriptor, Int(info.st_size))
    }

    /// Reads up to `count` bytes from `offset` on, retrying short reads and interruptions; fewer
    /// only when the file ends first.
    static func read(_ descriptor: Int32, count: Int, at offset: Int, path: String) throws -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var done = 0
        try result.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while done < buffer.count {
                let read = pread(descriptor, base + done, buffer.count - done, off_t(offset + done))
                if read < 0 {
                    if errno == EINTR { continue }
                    throw JSONStoreError.io(path: path, operation: "read", errno: errno)
                }
                if read == 0 { break }
                done += read
            }
        }
        result.removeSubrange(done...)
        return result
    }

    /// Makes a rename in `directory` durable.
    static func syncDirectory(_ directory: String) throws {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw JSONStoreError.io(path: directory, operation: "open directory", errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw JSONStoreError.io(path: directory, operation: "fsync directory", errno: errno) }
    }
}
