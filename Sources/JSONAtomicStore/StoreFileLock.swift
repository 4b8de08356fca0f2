import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The exclusive lock of a store open for writing: `flock(2)` on `<store>.lock`, which holds
/// the owner's process ID in decimal. The store file itself cannot carry the lock, since
/// every save replaces it with a new file.
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
    static func acquire(storePath: String) throws -> StoreFileLock {
        let path = storePath + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw JSONStoreError.io(path: path, operation: "open", errno: errno) }
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

    /// Gives the lock up (closing the descriptor releases it). Safe to call twice.
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
