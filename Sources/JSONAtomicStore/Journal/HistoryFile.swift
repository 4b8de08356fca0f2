import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The store's history file, `<store file>-history`: journal records that checkpoints folded
/// into the snapshot, kept (the newest ``JSONAtomicStore/historyRecordsOption`` of them) so that a
/// server can still answer what changed after an older commit (`docs/FILE_FORMAT.md`,
/// "The history file"). Framed as the journal (``JournalFormat``): written in version 2, the
/// header then records with their checksums, in commit order; a version 1 file (no header,
/// written before checksums) is read, and rewritten in version 2 at the next append.
///
/// An append rewrites the file safely (temporary file, `fsync`, `rename`, directory `fsync`)
/// with its records, the new ones and the newest `limit` kept.
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

    /// The format of a file that begins with `bytes`.
    static func format(of bytes: [UInt8]) -> JournalFormat {
        bytes.isEmpty || bytes.starts(with: JournalFormat.header) ? .version2 : .version1
    }

    /// Appends `records` (whole version 2 records, without a header) after the records of the
    /// file's whole lines `existing` (``bytes()``, checked by the caller) and keeps the newest
    /// `limit`; returns how many records the file holds then.
    func append(_ records: [UInt8], to existing: [UInt8], keeping limit: Int) throws -> Int {
        var lines = JournalWriter.records(existing[...], format: Self.format(of: existing))
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
        let file = JournalFormat.header + lines
        try DurableFile.replace(path: path, newFileMode: newFileMode) { sink in
            try file.withUnsafeBytes { try sink($0) }
        }
        return count
    }
}
