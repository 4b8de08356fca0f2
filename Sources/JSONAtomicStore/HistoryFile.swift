import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The store's history file, `<store file>-history`: journal records that checkpoints folded
/// into the snapshot, kept (the newest ``JSONAtomicStore/historyRecordsOption`` of them) so that a
/// server can still answer what changed after an older commit (`docs/FILE_FORMAT.md`,
/// "The history file"). The same lines as the journal, in commit order.
///
/// Appends go after the last whole line (a torn last line is cut first) and are made durable
/// with `fdatasync`; trimming rewrites the file safely (temporary file, `fsync`, `rename`).
struct HistoryFile {
    let path: String
    let newFileMode: mode_t

    /// The whole lines of the file, with their `\n` (an empty array when there is no file).
    func bytes() throws -> [UInt8] {
        guard let (descriptor, size) = try DurableFile.openRegularFile(path, shown: path, named: "the history file") else { return [] }
        defer { close(descriptor) }
        var result = try DurableFile.read(descriptor, count: size, at: 0, path: path)
        // A torn last line (a crash during an append) is not a record.
        while let last = result.last, last != 0x0A { result.removeLast() }
        return result
    }

    /// Appends `records` (whole lines) after the file's whole lines and keeps the newest
    /// `limit` lines; returns how many lines the file holds then.
    func append(_ records: [UInt8], keeping limit: Int) throws -> Int {
        var lines = try bytes()
        lines += records
        var count = lines.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        if count > limit {
            var start = 0
            while count > limit, let newline = lines[start...].firstIndex(of: 0x0A) {
                start = newline + 1
                count -= 1
            }
            lines.removeSubrange(0..<start)
        }
        try DurableFile.replace(path: path, newFileMode: newFileMode) { sink in
            try lines.withUnsafeBytes { try sink($0) }
        }
        return count
    }
}
