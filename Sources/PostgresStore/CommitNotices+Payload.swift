import Foundation
import GraphCore

/// Reading a commit notification's payload: `[[seq, committed_at, author, entities, refs,
/// kinds, previous], …]` as PostgreSQL's `json_agg(json_build_array(…))` writes it (`previous`
/// absent in a server's that records none, `_graph_history_write_1`), or a bare last number.
///
/// Read by hand (a notification arrives with every commit of every server, on postgres-nio's
/// thread; `JSONDecoder` cost as much as the query it saves): only this shape is accepted, and
/// anything else (another shape, a number out of range, a bad escape) reads as nothing, which
/// leaves the commits to the history table.
extension CommitNotices {
    /// The commits of a payload, or nil when it is not an array of well-formed ones numbered in
    /// a row; their objects' previous values read with `previous` (none without it).
    static func commits(in payload: String, previous: PreviousValuesReader? = nil) -> [StoreCommit]? {
        noticed(in: payload)?.map { $0.commit(previous: previous) }
    }

    /// The commits of a payload with their objects' previous values as texts, not read yet (a
    /// server's own commits come back to it, and are never asked for); nil as for ``commits(in:previous:)``.
    static func noticed(in payload: String) -> [NoticedCommit]? {
        var payload = payload
        return payload.withUTF8 { bytes in
            var scanner = NoticeScanner(bytes: bytes)
            guard let commits = scanner.commits(), scanner.atEnd else { return nil }
            // Without wrapping past the largest number.
            for (earlier, later) in zip(commits, commits.dropFirst())
            where earlier.commit.sequence == .max || later.commit.sequence != earlier.commit.sequence + 1 {
                return nil
            }
            return commits.isEmpty ? nil : commits
        }
    }
}

/// A commit read from a notification, its objects' previous values still as texts (empty: none).
struct NoticedCommit {
    var commit: StoreCommit
    var previous: [String?]

    /// The commit with its objects' previous values read with `reader` (none without it).
    func commit(previous reader: PreviousValuesReader?) -> StoreCommit {
        guard let reader, previous.count == commit.objects.count else { return commit }
        var objects = commit.objects
        for (index, text) in previous.enumerated() {
            if let text { objects[index].previous = reader.values(text, entity: objects[index].entity) }
        }
        return StoreCommit(sequence: commit.sequence, time: commit.time, author: commit.author, objects: objects)
    }
}

/// A cursor over a payload's bytes.
private struct NoticeScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    var atEnd: Bool {
        mutating get {
            skipSpace()
            return index == bytes.count
        }
    }

    mutating func commits() -> [NoticedCommit]? {
        var commits: [NoticedCommit] = []
        let read = list {
            guard let commit = $0.commit() else { return false }
            commits.append(commit)
            return true
        }
        return read ? commits : nil
    }

    private mutating func commit() -> NoticedCommit? {
        guard take(UInt8(ascii: "[")), let sequence = integer(), take(UInt8(ascii: ",")), let milliseconds = integer(),
              take(UInt8(ascii: ",")) else { return nil }
        let author: String?
        if takeNull() {
            author = nil
        } else {
            guard let text = string() else { return nil }
            author = text
        }
        var entities: [String] = [], references: [Int64] = []
        guard take(UInt8(ascii: ",")), list({ scanner in scanner.string().map { entities.append($0) } != nil }),
              take(UInt8(ascii: ",")), list({ scanner in scanner.integer().map { references.append($0) } != nil }),
              take(UInt8(ascii: ",")), let kinds = string(),
              entities.count == references.count, kinds.utf8.count == entities.count else { return nil }
        // Each object's previous values, or null (none recorded); the whole list null or absent.
        var texts: [String?] = []
        if take(UInt8(ascii: ",")), !takeNull() {
            guard list({ scanner in
                if scanner.takeNull() {
                    texts.append(nil)
                    return true
                }
                return scanner.string().map { texts.append($0) } != nil
            }) else { return nil }
        }
        guard take(UInt8(ascii: "]")), texts.isEmpty || texts.count == entities.count else { return nil }
        var objects: [CommittedObject] = []
        objects.reserveCapacity(entities.count)
        for ((entity, reference), letter) in zip(zip(entities, references), kinds) {
            guard let kind = CommittedObject.Kind(rawValue: String(letter)) else { return nil }
            objects.append(CommittedObject(entity: entity, reference: reference, kind: kind))
        }
        return NoticedCommit(commit: StoreCommit(sequence: sequence, time: Date(timeIntervalSince1970: Double(milliseconds) / 1000),
                                                 author: author, objects: objects), previous: texts)
    }

    /// `[element, …]` (possibly empty), each element read by `element`, which says whether it could.
    private mutating func list(_ element: (inout NoticeScanner) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        while true {
            guard element(&self) else { return false }
            if take(UInt8(ascii: "]")) { return true }
            guard take(UInt8(ascii: ",")) else { return false }
        }
    }

    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func takeNull() -> Bool {
        skipSpace()
        guard bytes.count - index >= 4, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
              bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l") else { return false }
        index += 4
        return true
    }

    /// A JSON integer that fits in 64 bits (no fraction, no exponent).
    private mutating func integer() -> Int64? {
        skipSpace()
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var value: Int64 = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let digit = Int64(bytes[index] - UInt8(ascii: "0"))
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow, !overflow2 else { return nil }
            value = sum
            digits += 1
            index += 1
        }
        guard digits > 0 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") { return nil }
        return value
    }

    /// A JSON string, its escapes resolved; nil for a bad escape or one that is not UTF-8.
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        var start = index
        var pieces: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                pieces.append(contentsOf: bytes[start..<index])
                index += 1
                return String(validating: pieces, as: UTF8.self)
            }
            guard byte == UInt8(ascii: "\\") else {
                guard byte >= 0x20 else { return nil }
                index += 1
                continue
            }
            pieces.append(contentsOf: bytes[start..<index])
            index += 1
            guard index < bytes.count else { return nil }
            let escaped = bytes[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): pieces.append(escaped)
            case UInt8(ascii: "b"): pieces.append(0x08)
            case UInt8(ascii: "f"): pieces.append(0x0C)
            case UInt8(ascii: "n"): pieces.append(0x0A)
            case UInt8(ascii: "r"): pieces.append(0x0D)
            case UInt8(ascii: "t"): pieces.append(0x09)
            case UInt8(ascii: "u"):
                guard let scalar = unicodeScalar() else { return nil }
                pieces.append(contentsOf: String(Character(scalar)).utf8)
            default: return nil
            }
            start = index
        }
        return nil
    }

    /// The scalar of a `\u` escape whose `\u` is read: four hex digits, or a surrogate pair.
    private mutating func unicodeScalar() -> Unicode.Scalar? {
        guard let high = hexQuad() else { return nil }
        if high < 0xD800 || high > 0xDFFF { return Unicode.Scalar(high) }
        guard high <= 0xDBFF, bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
        index += 2
        guard let low = hexQuad(), (0xDC00...0xDFFF).contains(low) else { return nil }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }

    private mutating func hexQuad() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = HexDigits.value(of: bytes[index]) else { return nil }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
