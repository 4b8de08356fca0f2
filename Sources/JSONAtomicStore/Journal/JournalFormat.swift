/// The framing of a file of journal records, the journal and the history file
/// (`docs/FILE_FORMAT.md`, "Record checksums"):
///
/// - **Version 2** (written by this program): the file's first line is exactly ``header``,
///   and every record ends with its CRC-32C, `…,"crc":"<8 lowercase hex digits>"}`, computed
///   over the record's bytes before `,"crc":` (from its `{` up to, not including, that comma).
/// - **Version 1** (written before): no header and no checksums; records are checked against
///   the schema only.
enum JournalFormat: Equatable, Sendable {
    case version1
    case version2

    /// The first line of a version 2 file, `\n` included.
    static let header: [UInt8] = Array(#"{"format":"graphcore-json-journal","formatVersion":2}"#.utf8) + [0x0A]
    /// What a first line that is a header (of any version) begins with.
    static let headerStart: [UInt8] = Array(#"{"format":"#.utf8)
    /// The bytes before the checksum's hex digits, and after them.
    static let checksumOpening: [UInt8] = Array(#","crc":""#.utf8)
    static let checksumClosing: [UInt8] = Array(#""}"#.utf8)
    /// How many bytes the checksum adds to a record: `,"crc":"` + 8 digits + `"}`, less the `}`
    /// it replaces.
    static let checksumLength = 8 + 8 + 2

    /// What the first line of a file of records is.
    enum FirstLine { case header, foreignHeader, record }

    /// Classifies `line` (without its `\n`), the first line of a file.
    static func classify(firstLine line: UnsafeRawBufferPointer) -> FirstLine {
        if line.count == header.count - 1, line.elementsEqual(header.dropLast()) { return .header }
        if line.starts(with: headerStart) { return .foreignHeader }
        return .record
    }

    /// Appends the checksum to `record`, one record's compact JSON object without its `\n`.
    static func seal(_ record: inout [UInt8]) {
        guard record.last == UInt8(ascii: "}") else { return }
        record.removeLast()
        let crc = CRC32C.checksum(record)
        record += checksumOpening
        record += hex(crc)
        record += checksumClosing
    }

    /// `lines` (whole version 1 records, each ended by `\n`) with their checksums added.
    static func sealed(lines: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(lines.count + lines.count / 8)
        var start = lines.startIndex
        while start < lines.endIndex, let newline = lines[start...].firstIndex(of: 0x0A) {
            var record = Array(lines[start..<newline])
            seal(&record)
            result += record
            result.append(0x0A)
            start = newline + 1
        }
        return result
    }

    /// Checks the checksum at the end of `line` (one record, without its `\n`); nil when it
    /// verifies, else what is wrong.
    static func verify(_ line: UnsafeRawBufferPointer) -> String? {
        guard line.count > checksumLength else {
            return #"the record is too short to end with its checksum (,"crc":"<8 hex digits>"})"#
        }
        let covered = line.count - checksumLength
        let opening = UnsafeRawBufferPointer(rebasing: line[covered..<(covered + checksumOpening.count)])
        let closing = UnsafeRawBufferPointer(rebasing: line[(line.count - 2)...])
        guard opening.elementsEqual(checksumOpening), closing.elementsEqual(checksumClosing) else {
            return #"the record does not end with its checksum (,"crc":"<8 hex digits>"})"#
        }
        var written: UInt32 = 0
        for index in (covered + checksumOpening.count)..<(line.count - 2) {
            let byte = line[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            default: return "the record's checksum is not 8 lowercase hex digits"
            }
            written = written << 4 | digit
        }
        let computed = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: line[..<covered]))
        guard computed == written else {
            return "the record's checksum says \(String(decoding: hex(written), as: UTF8.self)) but its bytes give "
                + "\(String(decoding: hex(computed), as: UTF8.self)): the record was changed after it was written"
        }
        return nil
    }

    /// `value` as 8 lowercase hex digits.
    static func hex(_ value: UInt32) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return (0..<8).map { digits[Int((value >> UInt32(28 - 4 * $0)) & 0xF)] }
    }
}
