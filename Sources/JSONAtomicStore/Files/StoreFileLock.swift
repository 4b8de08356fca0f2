import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The exclusive lock of a store open for writing: `flock(2)` on `<store>.lock`, beside the
/// store's real path (symlinks resolved, so that every name of the store meets the same
/// lock). The store file itself cannot carry the lock, since every save replaces it with a
/// new file.
///
/// The lock file is opened with `O_NOFOLLOW` and must be a regular file with one link: a
/// symlink or hard link planted at its name is refused, never truncated or written through.
/// It is created with the store's file mode (0600 unless an option says otherwise) and holds
/// the owner's process ID in decimal, shown when a second opener is refused. The ID reveals
/// nothing useful: temporary file names no longer derive from it, they are random.
///
/// `flock` locks belong to an open file description, so a second open in the same process is
/// refused too; the kernel drops the lock when the process dies. The lock file is left in
/// place when released (removing it would let two processes lock two different files).
final class StoreFileLock {
    let path: String
    private var descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Takes the lock of the store at `storePath`, or throws
    /// ``JSONStoreError/storeInUse(path:processID:)`` naming the holder.
    /// `storePath` must be the store's real path; `mode` is the mode of a new lock file.
    /// (`O_NONBLOCK` only keeps a FIFO planted at the name from hanging the open.)
    static func acquire(storePath: String, mode: mode_t = DurableFile.defaultMode) throws -> StoreFileLock {
        let path = storePath + ".lock"
        let flags = O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        var descriptor = open(path, flags | O_CREAT | O_EXCL, mode)
        if descriptor >= 0 {
            _ = fchmod(descriptor, mode)  // the mode asked for, whatever the umask
        } else if errno == EEXIST {
            descriptor = open(path, flags)
        }
        guard descriptor >= 0 else {
            let code = errno
            if code == ELOOP {
                throw JSONStoreError.unsafeFile(path: path, reason: "the lock file is a symbolic link")
            }
            throw JSONStoreError.io(path: path, operation: "open", errno: code)
        }
        var info = stat()
        if fstat(descriptor, &info) != 0 || (info.st_mode & S_IFMT) != S_IFREG || info.st_nlink != 1 {
            close(descriptor)
            throw JSONStoreError.unsafeFile(path: path, reason: "the lock file must be a regular file with one link")
        }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            let holder = code == EWOULDBLOCK ? readProcessID(descriptor) : nil
            close(descriptor)
            if code == EWOULDBLOCK { throw JSONStoreError.storeInUse(path: storePath, processID: holder) }
            throw JSONStoreError.io(path: path, operation: "flock", errno: code)
        }
        let text = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return StoreFileLock(path: path, descriptor: descriptor)
    }

    private static func readProcessID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 31, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Int32(text)
    }

    /// Gives the lock up. Safe to call twice.
    ///
    /// Unlocked explicitly before the close: a child process forked by another thread keeps a
    /// copy of the descriptor until it execs (close-on-exec), and that copy alone would keep the
    /// lock held, so that the store could not be opened again at once in this process.
    func release() {
        guard descriptor >= 0 else { return }
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
