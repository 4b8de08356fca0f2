#if canImport(Glibc)
import Glibc
#endif

/// An append-only file made durable after every append (`pwrite` at its end, then
/// `fdatasync`), as the docserver's journal and Redis's `appendfsync always`.
final class FloorJournalFile: @unchecked Sendable {
    // Sendable: used by one thread at a time (the writer thread, or the one event loop).
    private let descriptor: Int32
    private let path: String
    private var length = 0

    /// Creates `path` empty (or empties it).
    init(path: String) throws {
        let handle = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard handle >= 0 else { throw FloorError("cannot create the journal \(path): errno \(errno)") }
        descriptor = handle
        self.path = path
    }

    deinit { close(descriptor) }

    /// Writes `bytes` at the end of the file and waits until they are on the disk.
    func append(_ bytes: [UInt8]) throws {
        var written = 0
        try bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while written < buffer.count {
                let count = pwrite(descriptor, base + written, buffer.count - written, off_t(length + written))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw FloorError("cannot write the journal \(path): errno \(errno)")
                }
                written += count
            }
        }
        guard fdatasync(descriptor) == 0 else { throw FloorError("cannot sync the journal \(path): errno \(errno)") }
        length += written
    }
}

/// What stops the floor server, said on standard error.
struct FloorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
