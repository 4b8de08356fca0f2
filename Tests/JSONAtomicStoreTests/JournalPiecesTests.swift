import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// A large journal is read in pieces on every core (``JournalPieces``): what opens, and every
/// error with its offset, must be what one reader reading it record by record gives.
/// `JournalPieces.minimumPieceBytes` is made small here so that a small journal is cut.
struct JournalPiecesTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    let url: URL
    /// The snapshot the journal follows (the store's is checkpointed when it is closed).
    let base: URL
    /// The journal's header line and its records, each with its `\n`.
    let header: String
    let lines: [String]

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
        url = directory.file("store.json")
        base = directory.file("base.json")
        let open = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "0"])
        let context = open.context()
        let owners = try (0..<3).map { try context.insert("Owner", values: ["name": .string("owner \($0)")]) }
        var items: [ManagedObject] = []
        for index in 0..<10 {
            let item = try context.insert("Item", values: ["name": .string("item \(index)")])
            try item.setObject(owners[index % 3], forKey: "owner")
            items.append(item)
        }
        try context.save()
        try open.store.checkpoint()
        try FileManager.default.copyItem(at: url, to: base)
        // Updates, inserts, relationship changes and deletes, one save each.
        for round in 0..<30 {
            switch round % 5 {
            case 0: try items[round % items.count].set("note", "note \(round)")
            case 1: try items[(round * 3) % items.count].setObject(owners[round % 3], forKey: "owner")
            case 2:
                let item = try context.insert("Item", values: ["name": .string("new \(round)")])
                try item.setObject(owners[(round + 1) % 3], forKey: "owner")
                items.append(item)
            case 3: try items[(round * 7) % items.count].setObject(items[round % items.count], forKey: "favorite")
            default:
                try context.delete(items.removeLast())
            }
            try context.save()
        }
        let all = try fileText(journalURL(url)).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { String($0) + "\n" }
        header = all[0]
        lines = Array(all.dropFirst())
        #expect(header == String(decoding: JournalFormat.header, as: UTF8.self))
        #expect(lines.count == 30)
        open.close()
    }

    /// Opens a copy of the snapshot with `journal` as its journal (read-only: nothing is cut
    /// off), read in pieces of at least `pieceBytes`: the objects, or the error.
    func outcome(journal: String, pieceBytes: Int) throws -> String {
        let copy = directory.file("copy-\(UUID().uuidString).json")
        try FileManager.default.copyItem(at: base, to: copy)
        try Data(journal.utf8).write(to: journalURL(copy))
        return JournalPieces.$minimumPieceBytes.withValue(pieceBytes) {
            do {
                let open = try OpenStore(copy, model: model, readOnly: true)
                defer { open.close() }
                let store = open.store
                return "\(open.dump().sorted { $0.key < $1.key }) seq \(store.commitSequence) records \(store.replayedRecordCount) "
                    + "torn \(store.recoveredTornBytes) next \(store.nextReference)"
            } catch {
                return "error: \(error)".replacingOccurrences(of: copy.path, with: "store.json")
            }
        }
    }

    /// The outcome read in pieces (as many as the cores allow), and read by one reader.
    func expectSameInPieces(_ journal: String, _ comment: Comment? = nil,
                            sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let whole = try outcome(journal: journal, pieceBytes: Int.max)
        let pieces = try outcome(journal: journal, pieceBytes: 64)
        #expect(pieces == whole, comment, sourceLocation: sourceLocation)
        return whole
    }

    var isMulticore: Bool { ProcessInfo.processInfo.activeProcessorCount > 1 }

    @Test func aJournalReadInPiecesOpensTheSameStoreAsOneReaderAppliesInOrder() throws {
        let journal = header + lines.joined()
        #expect(JournalPieces.$minimumPieceBytes.withValue(64) { JournalPieces.pieceCount(forSize: journal.utf8.count) } > 1
                || !isMulticore)
        let bytes = Array(journal.utf8)
        let cuts = bytes.withUnsafeBytes { JournalPieces.cuts($0, count: 4) }
        #expect(cuts.count == 5 && cuts.first == 0 && cuts.last == bytes.count)
        for cut in cuts.dropFirst().dropLast() { #expect(bytes[cut - 1] == UInt8(ascii: "\n")) }
        let opened = try expectSameInPieces(journal)
        #expect(opened.contains("seq 31 records 30 torn 0"))
        #expect(!opened.hasPrefix("error"))
    }

    @Test func aJournalJustBelowAndJustAboveTheSizeWherePiecesBeginOpensTheSame() throws {
        let journal = header + lines.joined()
        let size = journal.utf8.count
        let pieceBytes = size / 2
        JournalPieces.$minimumPieceBytes.withValue(pieceBytes + 1) {
            #expect(JournalPieces.pieceCount(forSize: size) == 1, "just below: one reader")
        }
        JournalPieces.$minimumPieceBytes.withValue(pieceBytes) {
            #expect(JournalPieces.pieceCount(forSize: size) == (isMulticore ? 2 : 1), "just above: two pieces")
        }
        let below = try outcome(journal: journal, pieceBytes: pieceBytes + 1)
        let above = try outcome(journal: journal, pieceBytes: pieceBytes)
        #expect(below == above)
        #expect(below.contains("seq 31 records 30 torn 0"))
    }

    @Test func aDamagedRecordInAnyPieceIsRefusedWithTheOffsetOneReaderGives() throws {
        for index in 0..<lines.count {
            var damaged = lines
            damaged[index] = String(lines[index].prefix(lines[index].count / 2)) + "\n"  // cut short: not JSON
            let offset = lines[..<index].reduce(header.utf8.count) { $0 + $1.utf8.count }
            let whole = try expectSameInPieces(header + damaged.joined(), "record \(index) damaged")
            // A complete line that does not verify is damage, the last one too (issue 37).
            #expect(whole.contains("damaged journal at byte \(offset):"), "record \(index): \(whole)")
            #expect(whole.hasPrefix("error"), "record \(index)")
        }
    }

    @Test func aMissingRecordOrAWrongOneAnywhereIsRefusedAsByOneReader() throws {
        for index in 0..<lines.count {
            var missing = lines
            missing.remove(at: index)
            let gap = try expectSameInPieces(header + missing.joined(), "record \(index) missing")
            #expect(gap.hasPrefix("error") == (index < lines.count - 1), "record \(index): \(gap)")
            var wrong = lines
            wrong[index] = "{\"seq\":\(index + 2),\"unexpected\":[1,{\"a\":2}],\"inserted\":7}\n"
            let refused = try expectSameInPieces(header + wrong.joined(), "record \(index) not a record")
            #expect(refused.hasPrefix("error"), "record \(index)")
        }
    }

    @Test func aTornLastRecordIsCutOffWhenReadInPieces() throws {
        var journal = header + lines.joined()
        journal += String(lines[0].prefix(20))  // a torn append, without its `\n`
        let torn = try expectSameInPieces(journal)
        #expect(torn.contains("records 30 torn 20"))
        journal = header + lines.joined() + String(repeating: "\0", count: 12)  // zeros where the record was
        #expect(try expectSameInPieces(journal).contains("records 30 torn 12"))
        journal += "\n"  // a complete line of zeros is damage, not a tear
        #expect(try expectSameInPieces(journal).hasPrefix("error"))
    }

    @Test func aRecordTheFastScannerDeclinesIsReadByTheStrictParser() throws {
        // An escaped surrogate pair is valid JSON the range scanner leaves to yajl.
        let index = try #require(lines.lastIndex { $0.contains("\"note 25\"") })
        var journal = lines
        journal[index] = sealed(unsealed(lines[index].dropLast()).replacingOccurrences(of: "\"note 25\"", with: "\"\\ud83d\\ude00 25\"")) + "\n"
        let opened = try expectSameInPieces(header + journal.joined())
        #expect(opened.contains("\u{1F600} 25"), "the note holds the character")
        #expect(opened.contains("seq 31 records 30 torn 0"))
    }
}
