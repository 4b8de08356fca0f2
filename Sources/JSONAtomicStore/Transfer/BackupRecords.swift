import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Journal records of a backup, by commit: what the store's journal and history file hold,
/// and the records file of a backup (`records.journal`, framed as a version 2 journal).
struct BackupRecords {
    /// One record: its whole line (without `\n`, with its checksum), its commit and its time text.
    struct Record {
        let line: ArraySlice<UInt8>
        let sequence: Int64
        let time: String
    }

    /// Records by `seq`; the first one read of each `seq` is kept.
    private(set) var bySequence: [Int64: Record] = [:]

    /// Takes the records of whole lines `bytes` of a file of records (either version; a
    /// version 1 file's records get their checksums). A record that does not verify is an
    /// error naming `file` and its byte offset.
    mutating func take(_ bytes: [UInt8], file: String) throws {
        let format = HistoryFile.format(of: bytes)
        let records = JournalWriter.records(bytes[...], format: format)
        var start = records.startIndex
        while start < records.endIndex, let newline = records[start...].firstIndex(of: 0x0A) {
            let line = records[start..<newline]
            let record = try Self.record(line, file: file, offset: start)
            if bySequence[record.sequence] == nil { bySequence[record.sequence] = record }
            start = newline + 1
        }
    }

    /// Reads `seq` and `time`, the first two keys of every record (`{"seq":12,"time":"…",`),
    /// after checking the record's checksum.
    static func record(_ line: ArraySlice<UInt8>, file: String, offset: Int) throws -> Record {
        if let problem = line.withUnsafeBytes({ JournalFormat.verify($0) }) {
            throw JSONStoreError.invalidJournal(file: file, offset: offset, reason: problem)
        }
        let seqKey = Array(#"{"seq":"#.utf8), timeKey = Array(#","time":""#.utf8)
        guard line.starts(with: seqKey) else {
            throw JSONStoreError.invalidJournal(file: file, offset: offset, reason: #"the record does not begin with {"seq":"#)
        }
        var index = line.startIndex + seqKey.count
        var sequence: Int64 = 0
        while index < line.endIndex, (0x30...0x39).contains(line[index]) {
            let (times, overflow1) = sequence.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(line[index] - 0x30))
            guard !overflow1, !overflow2 else {
                throw JSONStoreError.invalidJournal(file: file, offset: offset, reason: "the record's seq is too large")
            }
            sequence = sum
            index += 1
        }
        guard sequence >= 1, line[index...].starts(with: timeKey) else {
            throw JSONStoreError.invalidJournal(file: file, offset: offset, reason: #"the record does not begin with {"seq":<n>,"time":"#)
        }
        let timeStart = index + timeKey.count
        guard let timeEnd = line[timeStart...].firstIndex(of: UInt8(ascii: "\"")) else {
            throw JSONStoreError.invalidJournal(file: file, offset: offset, reason: "the record's time is not closed")
        }
        return Record(line: line, sequence: sequence, time: String(decoding: line[timeStart..<timeEnd], as: UTF8.self))
    }

    /// The run of records without a gap that begins right after `base`: `base + 1`, `base + 2`, …
    func run(after base: Int64) -> [Record] {
        var result: [Record] = []
        var next = base + 1
        while let record = bySequence[next] {
            result.append(record)
            next += 1
        }
        return result
    }

    /// Whether any record is above `base` (a run that is empty while this holds means a gap).
    func hasRecords(above base: Int64) -> Bool { bySequence.keys.contains { $0 > base } }

    /// The whole lines of the file at `path` (the bytes after its last `\n`, a record being
    /// written or torn, left out); empty when there is no file.
    static func wholeLines(of path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return [] }
            throw JSONStoreError.io(path: path, operation: "open", errno: errno)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw JSONStoreError.io(path: path, operation: "fstat", errno: errno) }
        var bytes = try DurableFile.read(descriptor, count: Int(info.st_size), at: 0, path: path)
        while let last = bytes.last, last != 0x0A { bytes.removeLast() }
        return bytes
    }
}
