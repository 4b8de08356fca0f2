#if canImport(Glibc)
import Glibc
#endif

/// An append-only file made durable after every append (`write`, then `fdatasync`), as Redis's
/// `appendfsync always` and the docserver's journal (which `pwrite`s at its end) do.
final class FloorJournalFile: @unchecked Sendable {
    // Sendable: used by one thread at a time (the writer thread, or the one event loop).
    private let descriptor: Int32
    private let path: String

    /// Creates `path` empty (or empties it).
    init(path: String) throws {
        let handle = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard handle >= 0 else { throw FloorError("cannot create the journal \(path): errno \(errno)") }
        descriptor = handle
        self.path = path
    }

    deinit { close(descriptor) }

    /// Writes `bytes` at the end of the file and waits until they are on the disk.
    func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { buffer in
            var rest = buffer
            while let base = rest.baseAddress, !rest.isEmpty {
                let count = write(descriptor, base, rest.count)
                guard count >= 0 || errno == EINTR else { throw FloorError("cannot write the journal \(path): errno \(errno)") }
                rest = UnsafeRawBufferPointer(rebasing: rest[max(count, 0)...])
            }
        }
        guard fdatasync(descriptor) == 0 else { throw FloorError("cannot sync the journal \(path): errno \(errno)") }
    }
}

/// What stops the floor server, printed before it exits.
struct FloorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
