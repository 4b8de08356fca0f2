import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real path of a store file: symlinks and `.`/`..` resolved, in the directory and in
/// the file name itself, even when the file does not exist yet (a symlink to a store not yet
/// written). The lock is taken and the file written there, so that every name of a store
/// (its real path, a symlink to it, a path through a symlinked directory) meets the same
/// lock, and a save leaves a symlink a symlink.
enum StorePath {
    /// How many symlinks are followed before giving up (as the kernel's `ELOOP`).
    static let maximumLinks = 40

    /// The real path of `path`; when even its directory does not exist, `path` unchanged
    /// (opening then reports the missing directory).
    static func resolve(_ path: String) throws -> String {
        var current = path
        for _ in 0..<maximumLinks {
            if let real = realPath(current) { return real }
            guard errno == ENOENT else { return current }
            var info = stat()
            if lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
                // A symlink to a file that does not exist (yet): follow it by hand.
                guard let target = readLink(current) else { return current }
                current = target.hasPrefix("/") ? target
                    : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(target).path
                continue
            }
            // No file by that name: resolve the directory, keep the name.
            let url = URL(fileURLWithPath: current)
            guard let directory = realPath(url.deletingLastPathComponent().path) else { return current }
            return URL(fileURLWithPath: directory).appendingPathComponent(url.lastPathComponent).path
        }
        throw JSONStoreError.unsafeFile(path: path, reason: "more than \(maximumLinks) symbolic links to follow")
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { pointer -> Int in
            guard let base = pointer.baseAddress else { return -1 }
            return readlink(path, base, Int(PATH_MAX))
        }
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
