import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// Issue 37: a journal record verifies itself (its CRC-32C and a strict schema). A complete
/// record that fails either check is damage, refused with its offset, in a version 2 journal
/// (header and checksums) and in a version 1 journal (written before checksums) alike; only an
/// incomplete last line is a tear.
struct JournalVerificationTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    let url: URL

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
        url = directory.file("store.json")
    }

    /// A store with `count` tags saved one per commit; returns its records without their
    /// checksums (as a version 1 journal holds them), the journal left as a stopped process leaves it.
    func makeStore(tags count: Int) throws -> [String] {
        let open = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "0"])
        let context = open.context()
        for index in 1...count {
            _ = try context.insert("Tag", values: ["label": .string("tag \(index)")])
            try context.save()
        }
        open.store.journal.close()
        let text = try fileText(journalURL(url))
        let header = String(decoding: JournalFormat.header, as: UTF8.self)
        #expect(text.hasPrefix(header), "a new journal is written in version 2")
        return text.dropFirst(header.count).split(separator: "\n").map { line in
            #expect(line.hasSuffix("\"}"))
            return String(line.dropLast(JournalFormat.checksumLength)) + "}"
        }
    }

    enum Version: CaseIterable { case one, two }

    /// Writes `records` as a journal of `version`: with the header and each record sealed, or as they are.
    func writeJournal(_ records: [String], _ version: Version, lastNewline: Bool = true) throws {
        var bytes: [UInt8] = version == .two ? JournalFormat.header : []
        for (index, record) in records.enumerated() {
            var line = Array(record.utf8)
            if version == .two { JournalFormat.seal(&line) }
            bytes += line
            if index < records.count - 1 || lastNewline { bytes.append(0x0A) }
        }
        try Data(bytes).write(to: journalURL(url))
    }

    /// The byte offset of record `index` in a journal of `version` holding `records`.
    func offset(of index: Int, in records: [String], _ version: Version) -> Int {
        var offset = version == .two ? JournalFormat.header.count : 0
        for record in records.prefix(index) {
            offset += record.utf8.count + 1 + (version == .two ? JournalFormat.checksumLength - 1 : 0)
        }
        return offset
    }

    func labels(_ open: OpenStore) -> [String] {
        open.store.cacheNodes().compactMap { node -> String? in
            if case .string(let label) = node.values.first { return label }
            return nil
        }.sorted()
    }

    /// Expects the store to be refused at `offset` with a reason containing `words`, the journal unchanged.
    func expectRefused(at offset: Int, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try Data(contentsOf: journalURL(url))
        var thrown: Error?
        do { _ = try OpenStore(url, model: model) } catch { thrown = error }
        guard case JSONStoreError.invalidJournal(let file, let at, let reason)? = thrown else {
            Issue.record("expected a damaged journal, got \(String(describing: thrown))", sourceLocation: sourceLocation)
            return
        }
        #expect(file == url.path + "-journal", sourceLocation: sourceLocation)
        // The offset is the record's, or the place in it where the schema check failed.
        let end = before[offset...].firstIndex(of: 0x0A) ?? before.count
        #expect(at >= offset && at <= end, "\(at) not in the record at \(offset)..<\(end): \(reason)", sourceLocation: sourceLocation)
        #expect(reason.contains(words), "\(reason)", sourceLocation: sourceLocation)
        #expect(try Data(contentsOf: journalURL(url)) == before, "nothing is overwritten", sourceLocation: sourceLocation)
    }

    @Test(arguments: Version.allCases)
    func aMisspelledKeyInAMiddleRecordIsRefused(_ version: Version) throws {
        var records = try makeStore(tags: 3)
        records[1] = records[1].replacingOccurrences(of: "\"inserted\"", with: "\"insertex\"")
        try writeJournal(records, version)
        try expectRefused(at: offset(of: 1, in: records, version), "unknown key \"insertex\"")
    }

    @Test(arguments: Version.allCases)
    func aRecordOfOnlyItsSequenceIsRefused(_ version: Version) throws {
        var records = try makeStore(tags: 3)
        records.append("{\"seq\":4}")
        records.append(records[2].replacingOccurrences(of: "\"seq\":3", with: "\"seq\":5"))
        try writeJournal(records, version)
        try expectRefused(at: offset(of: 3, in: records, version), "the record lacks \"time\", \"nextReference\"")
    }

    @Test(arguments: Version.allCases)
    func anUnknownKeyIsRefused(_ version: Version) throws {
        var records = try makeStore(tags: 2)
        records[0] = records[0].replacingOccurrences(of: "\"deleted\":[]", with: "\"deleted\":[],\"colour\":\"red\"")
        try writeJournal(records, version)
        try expectRefused(at: offset(of: 0, in: records, version), "unknown key \"colour\"")
    }

    @Test(arguments: Version.allCases)
    func anUnparseableTimeIsRefused(_ version: Version) throws {
        var records = try makeStore(tags: 2)
        let time = try #require(records[1].range(of: #""time":"[^"]*""#, options: .regularExpression))
        records[1].replaceSubrange(time, with: #""time":"yesterday""#)
        try writeJournal(records, version)
        try expectRefused(at: offset(of: 1, in: records, version), "\"time\" must be a date")
    }

    @Test(arguments: Version.allCases)
    func aMissingFieldIsRefused(_ version: Version) throws {
        var records = try makeStore(tags: 3)
        records[1] = records[1].replacingOccurrences(of: ",\"deleted\":[]", with: "")
        try writeJournal(records, version)
        try expectRefused(at: offset(of: 1, in: records, version), "the record lacks \"deleted\"")
    }

    @Test(arguments: Version.allCases)
    func aValueOfTheWrongTypeIsRefused(_ version: Version) throws {
        var records = try makeStore(tags: 2)
        records[1] = records[1].replacingOccurrences(of: "\"updated\":{}", with: "\"updated\":[]")
        try writeJournal(records, version)
        try expectRefused(at: offset(of: 1, in: records, version), "unexpected array")
    }

    @Test func aCompleteLastLineWithOneFlippedByteIsDamageNotATear() throws {
        let records = try makeStore(tags: 3)
        try writeJournal(records, .two)
        var bytes = [UInt8](try Data(contentsOf: journalURL(url)))
        let last = offset(of: 2, in: records, .two)
        let tag = Array("tag 3".utf8)
        let start = try #require((last..<bytes.count).first { bytes[$0...].starts(with: tag) })
        let index = start + 4
        bytes[index] ^= 0x04  // "tag 3" becomes "tag 7": valid JSON, a valid record but for its checksum
        try Data(bytes).write(to: journalURL(url))
        try expectRefused(at: last, "the record was changed after it was written")
    }

    @Test func aCompleteLastLineThatIsNotJSONIsDamageNotATear() throws {
        let records = try makeStore(tags: 2)
        try writeJournal(records + [String(records[1].prefix(20))], .one)
        try expectRefused(at: offset(of: 2, in: records, .one), "not a JSON record")
    }

    @Test(arguments: Version.allCases)
    func anIncompleteLastLineIsStillATear(_ version: Version) throws {
        let records = try makeStore(tags: 3)
        try writeJournal(records, version, lastNewline: false)
        let open = try OpenStore(url, model: model)
        #expect(labels(open) == ["tag 1", "tag 2"])
        #expect(open.store.commitSequence == 2)
        #expect(open.store.recoveredTornBytes > 0)
        // The next save follows the last good record, in the journal's format.
        let context = open.context()
        _ = try context.insert("Tag", values: ["label": "tag 3"])
        try context.save()
        open.close()
        let reopened = try OpenStore(url, model: model)
        #expect(labels(reopened) == ["tag 1", "tag 2", "tag 3"])
    }

    @Test func aDamagedHeaderIsRefused() throws {
        let records = try makeStore(tags: 1)
        try writeJournal(records, .two)
        var bytes = [UInt8](try Data(contentsOf: journalURL(url)))
        bytes[JournalFormat.header.count - 3] = UInt8(ascii: "3")  // "formatVersion":3
        try Data(bytes).write(to: journalURL(url))
        try expectRefused(at: 0, "the first line is not the header")
    }

    @Test func aVersion1JournalOpensAndIsWrittenInVersion2AfterTheNextCheckpoint() throws {
        let records = try makeStore(tags: 3)
        try writeJournal(records, .one)
        do {
            let open = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "0"])
            #expect(labels(open) == ["tag 1", "tag 2", "tag 3"])
            let context = open.context()
            _ = try context.insert("Tag", values: ["label": "tag 4"])
            try context.save()
            let text = try fileText(journalURL(url))
            #expect(!text.hasPrefix("{\"format\""), "records go on in the journal's own version")
            #expect(!text.contains("\"crc\""))
            let ticket = try open.store.beginCheckpoint()
            try JSONAtomicStore.writeSnapshot(ticket, objects: open.store.cacheNodes().map {
                ObjectSnapshot(objectID: $0.objectID, version: $0.version, values: $0.values)
            })
            _ = try context.insert("Tag", values: ["label": "tag 5"])
            try context.save()
            try open.store.finishCheckpoint(ticket)
            let kept = try fileText(journalURL(url))
            #expect(kept.hasPrefix(String(decoding: JournalFormat.header, as: UTF8.self)), "the checkpoint's journal is version 2")
            #expect(kept.split(separator: "\n").count == 2)
            #expect(kept.contains("\"crc\""))
            open.store.journal.close()
        }
        let reopened = try OpenStore(url, model: model)
        #expect(labels(reopened) == ["tag 1", "tag 2", "tag 3", "tag 4", "tag 5"])
    }

    @Test func aRecordWithAChecksumInAVersion1JournalIsRefused() throws {
        let records = try makeStore(tags: 1)
        var line = Array(records[0].utf8)
        JournalFormat.seal(&line)
        try Data(line + [0x0A]).write(to: journalURL(url))
        try expectRefused(at: 0, "unknown key \"crc\"")
    }
}
