import Foundation
import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads a store's journal (`docs/FILE_FORMAT.md`, "The journal") into the decoder that read
/// its snapshot: record by record, each line parsed by yajl's event parser as it streams.
///
/// - Records at or below the snapshot's `commitSequence` are skipped (they were checkpointed;
///   the journal was not yet replaced when the process stopped).
/// - Sequence numbers must grow by exactly 1 from record to record, and the first record
///   applied must follow the snapshot.
/// - The last record may be torn (no `\n` at its end, or a last line that is not JSON): it is
///   left out and its bytes reported. A last line that is JSON but not a valid record is
///   damage, not a torn write. A damaged record before the last, or a gap in
///   the sequence, throws ``JSONStoreError/invalidJournal(file:offset:reason:)``.
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

    init(path: String, decoder: StoreFileDecoder, replay: JournalReplay, baseSequence: Int64, checksStart: Bool = true) {
        self.path = path
        self.decoder = decoder
        self.replay = replay
        self.baseSequence = baseSequence
        self.checksStart = checksStart
        handler = JournalRecordDecoder(decoder: decoder, replay: replay, baseSequence: baseSequence)
    }

    /// Reads the journal from `descriptor` (positioned at its start).
    func read(_ descriptor: Int32) throws -> Result {
        var result = Result()
        var pending: [UInt8] = []  // the start of a line that continues in the next chunk
        var chunkOffset = 0        // the file offset of the chunk's first byte
        var expected: Int64?       // the sequence the next record must have
        var damage: Damage?        // a line that did not parse: torn if nothing follows it
        var scanner = RangeScanner(handler: handler)
        defer { scanner.deallocate() }
        try StoreFileReader.readChunks(descriptor, path: path) { chunk in
            guard let base = chunk.baseAddress else { return }
            var start = 0
            while start < chunk.count {
                if let damage { throw damage.error(path) }
                guard let found = memchr(base + start, 0x0A, chunk.count - start) else {
                    pending.append(contentsOf: chunk[start...])
                    break
                }
                let newline = UnsafeRawPointer(found) - base
                let lineStart = chunkOffset + start - pending.count
                do {
                    if pending.isEmpty {
                        try record(UnsafeRawBufferPointer(rebasing: chunk[start..<newline]), at: lineStart,
                                   expected: &expected, result: &result, scanner: &scanner)
                    } else {
                        pending.append(contentsOf: chunk[start..<newline])
                        defer { pending.removeAll(keepingCapacity: true) }
                        try pending.withUnsafeBytes {
                            try record($0, at: lineStart, expected: &expected, result: &result, scanner: &scanner)
                        }
                    }
                    result.goodLength = chunkOffset + newline + 1
                } catch let found as Damage {
                    damage = found
                }
                start = newline + 1
            }
            chunkOffset += chunk.count
        }
        if let damage {
            if !pending.isEmpty { throw damage.error(path) }
            result.tornBytes = damage.length
        } else {
            // A last line without its `\n` is torn, however it parses.
            result.tornBytes = pending.count
        }
        return result
    }

    /// What reading one piece of the journal found (``JournalPieces``).
    struct Piece {
        var result = Result()
        /// The first error, in file order (the piece stops there).
        var error: Error?
        /// A last line that did not parse: torn when it ends the journal, else damage.
        var damage: Damage?
        /// The bytes after the last `\n` (only the journal's last piece has any): a torn record.
        var pending = 0
    }

    /// Reads the records of `bytes`, the piece of the journal at file offset `base` that
    /// begins at a record and ends after a `\n` (or at the journal's end). Nothing is thrown:
    /// what went wrong is in the piece, for the join to report in file order.
    func read(piece bytes: UnsafeRawBufferPointer, at base: Int) -> Piece {
        var piece = Piece()
        var expected: Int64?
        var scanner = RangeScanner(handler: handler)
        defer { scanner.deallocate() }
        guard let start = bytes.baseAddress else { return piece }
        var offset = 0
        while offset < bytes.count {
            if let damage = piece.damage {
                piece.error = damage.error(path)
                piece.damage = nil
                return piece
            }
            guard let found = memchr(start + offset, 0x0A, bytes.count - offset) else {
                piece.pending = bytes.count - offset
                return piece
            }
            let newline = UnsafeRawPointer(found) - start
            do {
                try record(UnsafeRawBufferPointer(rebasing: bytes[offset..<newline]), at: base + offset,
                           expected: &expected, result: &piece.result, scanner: &scanner)
                piece.result.goodLength = base + newline + 1
            } catch let found as Damage {
                piece.damage = found
            } catch {
                piece.error = error
                return piece
            }
            offset = newline + 1
        }
        return piece
    }

    /// Parses one record; a damaged one throws, unless it is the last and so torn. The fast
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
            guard case .invalidJSON = error else {
                throw JSONStoreError.invalidJournal(file: path, offset: offset + error.offset, reason: error.reason)
            }
            // Not JSON: what a torn write leaves (a prefix of a record, or zeros).
            decoder.rollBack(to: mark)
            replay.removeOperations(from: operations)
            throw JournalReader.Damage(offset: offset, length: line.count + 1, reason: "\(error)")
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
        if result.records > 0 || checksStart {
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

    /// A record that does not parse; torn when it is the last line, else the journal is damaged.
    struct Damage: Error {
        let offset: Int
        let length: Int
        let reason: String

        func error(_ path: String) -> JSONStoreError {
            .invalidJournal(file: path, offset: offset, reason: "a damaged record before the last one: \(reason)")
        }
    }

    private static func reason(_ error: Error) -> String {
        switch error {
        case let error as JSONShapeError: return error.reason
        case let error as JSONDuplicateKeyError: return error.reason
        default: return "\(error)"
        }
    }
}
