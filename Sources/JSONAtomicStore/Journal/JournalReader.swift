import Foundation
import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads a store's journal (`docs/FILE_FORMAT.md`, "The journal") into the decoder that read
/// its snapshot: record by record, each line parsed by yajl's event parser as it streams.
///
/// - A version 2 journal begins with ``JournalFormat/header`` and each of its records must
///   verify its checksum; a version 1 journal (no header) has none. Every record must meet the
///   schema (``JournalRecordDecoder``).
/// - Records at or below the snapshot's `commitSequence` are skipped (they were checkpointed;
///   the journal was not yet replaced when the process stopped).
/// - Sequence numbers must grow by exactly 1 from record to record, and the first record
///   applied must follow the snapshot.
/// - Only a last line without its `\n` is torn: it is left out and its bytes reported. A
///   complete line that fails a check is damage, wherever it is, and throws
///   ``JSONStoreError/invalidJournal(file:offset:reason:)``, as does a gap in the sequence.
struct JournalReader {
    /// What reading found.
    struct Result {
        /// The length of the journal up to the end of its last good record.
        var goodLength = 0
        /// The bytes of a torn last record, cut off.
        var tornBytes = 0
        /// The records read (applied or skipped) and those applied.
        var records = 0
        var appliedRecords = 0
        /// The sequence of the last record (0 when none).
        var lastSequence: Int64 = 0
        /// The largest `nextReference` of the applied records.
        var nextReference: Int64 = 1
        /// The sequence and offset of the first record read (a piece's, for the join).
        var firstSequence: Int64?
        var firstOffset = 0
        /// The journal's format (version 2 for a journal without a whole line).
        var format = JournalFormat.version2
    }

    let path: String
    let decoder: StoreFileDecoder
    let replay: JournalReplay
    let baseSequence: Int64
    /// Reads every record in turn.
    let handler: JournalRecordDecoder
    /// Whether the first record read must follow the snapshot (false for a piece after the
    /// first, whose first record must follow the piece before: ``JournalPieces`` checks it).
    let checksStart: Bool
    /// The journal's format, or nil when the bytes read begin at the file's start (its first
    /// line says).
    let format: JournalFormat?
    /// Whether sequence numbers must grow by 1 (not in the history file, which may have gaps).
    let checksSequence: Bool

    init(path: String, decoder: StoreFileDecoder, replay: JournalReplay, baseSequence: Int64, checksStart: Bool = true,
         format: JournalFormat? = nil, checksSequence: Bool = true) {
        self.path = path
        self.decoder = decoder
        self.replay = replay
        self.baseSequence = baseSequence
        self.checksStart = checksStart
        self.format = format
        self.checksSequence = checksSequence
        handler = JournalRecordDecoder(decoder: decoder, replay: replay, baseSequence: baseSequence)
    }

    /// The line-by-line state of one reading.
    private struct Progress {
        var format: JournalFormat?
        var expected: Int64?       // the sequence the next record must have
        var result = Result()
    }

    /// Reads the journal from `descriptor` (positioned at its start).
    func read(_ descriptor: Int32) throws -> Result {
        var progress = Progress(format: format)
        var pending: [UInt8] = []  // the start of a line that continues in the next chunk
        var chunkOffset = 0        // the file offset of the chunk's first byte
        var scanner = RangeScanner(handler: handler)
        defer { scanner.deallocate() }
        try StoreFileReader.readChunks(descriptor, path: path) { chunk in
            guard let base = chunk.baseAddress else { return }
            var start = 0
            while start < chunk.count {
                guard let found = memchr(base + start, 0x0A, chunk.count - start) else {
                    pending.append(contentsOf: chunk[start...])
                    break
                }
                let newline = UnsafeRawPointer(found) - base
                let lineStart = chunkOffset + start - pending.count
                if pending.isEmpty {
                    try readLine(UnsafeRawBufferPointer(rebasing: chunk[start..<newline]), at: lineStart,
                             progress: &progress, scanner: &scanner)
                } else {
                    pending.append(contentsOf: chunk[start..<newline])
                    defer { pending.removeAll(keepingCapacity: true) }
                    try pending.withUnsafeBytes {
                        try readLine($0, at: lineStart, progress: &progress, scanner: &scanner)
                    }
                }
                progress.result.goodLength = chunkOffset + newline + 1
                start = newline + 1
            }
            chunkOffset += chunk.count
        }
        // A last line without its `\n` is torn, however it parses; nothing else is.
        progress.result.tornBytes = pending.count
        if let format = progress.format { progress.result.format = format }
        return progress.result
    }

    /// What reading one piece of the journal found (``JournalPieces``).
    struct Piece {
        var result = Result()
        /// The first error, in file order (the piece stops there).
        var error: Error?
        /// The bytes after the last `\n` (only the journal's last piece has any): a torn record.
        var pending = 0
    }

    /// Reads the records of `bytes`, the piece of the journal at file offset `base` that
    /// begins at a record (or the file's start) and ends after a `\n` (or at the journal's
    /// end). Nothing is thrown: what went wrong is in the piece, for the join to report in
    /// file order.
    func read(piece bytes: UnsafeRawBufferPointer, at base: Int) -> Piece {
        var piece = Piece()
        var progress = Progress(format: format)
        var scanner = RangeScanner(handler: handler)
        defer {
            scanner.deallocate()
        }
        guard let start = bytes.baseAddress else { return piece }
        var offset = 0
        while offset < bytes.count {
            guard let found = memchr(start + offset, 0x0A, bytes.count - offset) else {
                piece.pending = bytes.count - offset
                break
            }
            let newline = UnsafeRawPointer(found) - start
            do {
                try readLine(UnsafeRawBufferPointer(rebasing: bytes[offset..<newline]), at: base + offset,
                         progress: &progress, scanner: &scanner)
                progress.result.goodLength = base + newline + 1
            } catch {
                piece.error = error
                break
            }
            offset = newline + 1
        }
        if let format = progress.format { progress.result.format = format }
        piece.result = progress.result
        return piece
    }

    /// Reads one complete line (without its `\n`): the file's first line says its format (the
    /// version 2 header, else a version 1 record); a version 2 record must verify its checksum.
    private func readLine(_ line: UnsafeRawBufferPointer, at offset: Int, progress: inout Progress,
                      scanner: inout RangeScanner<JournalRecordDecoder>) throws {
        if progress.format == nil {
            switch JournalFormat.classify(firstLine: line) {
            case .header:
                progress.format = .version2
                return
            case .foreignHeader:
                throw JSONStoreError.invalidJournal(
                    file: path, offset: offset,
                    reason: "the first line is not the header \(String(decoding: JournalFormat.header.dropLast(), as: UTF8.self)): "
                        + "a journal format this program does not read, or a damaged header")
            case .record:
                progress.format = .version1
            }
        }
        let sealed = progress.format == .version2
        if sealed, let reason = JournalFormat.verify(line) {
            throw JSONStoreError.invalidJournal(file: path, offset: offset, reason: reason)
        }
        handler.checksum = sealed
        try record(line, at: offset, expected: &progress.expected, result: &progress.result, scanner: &scanner)
    }

    /// Parses one record; a damaged one throws. The fast
    /// scanner reads a plain record; one it declines (or that fails) is read again by yajl.
    private func record(_ line: UnsafeRawBufferPointer, at offset: Int, expected: inout Int64?,
                        result: inout Result, scanner: inout RangeScanner<JournalRecordDecoder>) throws {
        let mark = decoder.journalMark()
        let operations = replay.operations.count
        replay.recordOffset = offset
        handler.reset()
        let scanned = (try? scanner.scanDocument(line)) ?? false
        if !scanned || !handler.isDone {
            decoder.rollBack(to: mark)
            replay.removeOperations(from: operations)
            handler.reset()
            try parse(line, at: offset, mark: mark, operations: operations)
        }
        try check(at: offset, expected: &expected, result: &result)
    }

    /// Parses one record with yajl, which places every error.
    private func parse(_ line: UnsafeRawBufferPointer, at offset: Int, mark: StoreFileDecoder.JournalMark,
                       operations: Int) throws {
        do {
            try JSONEventParser.parse(line, handler: handler)
        } catch let error as JSONError {
            decoder.rollBack(to: mark)
            replay.removeOperations(from: operations)
            // A complete line that is not JSON is damage: a torn write leaves no `\n` after it.
            guard case .invalidJSON = error else {
                throw JSONStoreError.invalidJournal(file: path, offset: offset + error.offset, reason: error.reason)
            }
            throw JSONStoreError.invalidJournal(file: path, offset: offset, reason: "not a JSON record: \(error)")
        } catch {
            // JSON, but not a valid record: never what a torn write leaves.
            throw JSONStoreError.invalidJournal(file: path, offset: offset, reason: Self.reason(error))
        }
    }

    /// Checks the sequence of the record just read and counts it.
    private func check(at offset: Int, expected: inout Int64?, result: inout Result) throws {
        guard let sequence = handler.sequence else {
            throw JSONStoreError.invalidJournal(file: path, offset: offset, reason: "a journal record has no \"seq\"")
        }
        if result.records == 0 {
            result.firstSequence = sequence
            result.firstOffset = offset
        }
        if checksSequence, result.records > 0 || checksStart {
            try Self.checkFollows(sequence, expected: expected, baseSequence: baseSequence, path: path, offset: offset)
        }
        expected = Self.next(after: sequence)
        result.records += 1
        result.lastSequence = sequence
        if !handler.isSkipped {
            result.appliedRecords += 1
            result.nextReference = max(result.nextReference, handler.nextReference ?? 1)
        }
    }

    /// Checks that a record's `sequence` is `expected` (the one after the record before), or
    /// when none is expected, that it follows the snapshot's `baseSequence`.
    static func checkFollows(_ sequence: Int64, expected: Int64?, baseSequence: Int64, path: String, offset: Int) throws {
        if let expected, sequence != expected {
            throw JSONStoreError.invalidJournal(file: path, offset: offset,
                                                reason: "record \(sequence) follows record \(expected - 1): the sequence must grow by 1")
        }
        if expected == nil, sequence - 1 > baseSequence {  // sequence >= 1: no overflow
            throw JSONStoreError.invalidJournal(
                file: path, offset: offset,
                reason: "the first record is \(sequence) but the snapshot holds commits up to \(baseSequence): records are missing")
        }
    }

    /// The sequence a record after `sequence` must have (nil past the largest).
    static func next(after sequence: Int64) -> Int64? {
        sequence.addingReportingOverflow(1).overflow ? nil : sequence + 1
    }

    private static func reason(_ error: Error) -> String {
        switch error {
        case let error as JSONShapeError: return error.reason
        case let error as JSONDuplicateKeyError: return error.reason
        default: return "\(error)"
        }
    }
}
