import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// The history file holds journal records, verified as the journal's are; a history that
/// cannot be written is reported, never passed over in silence (issue 37).
struct HistoryVerificationTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    let url: URL
    let options = [JSONAtomicStore.journalCheckpointBytesOption: "0", JSONAtomicStore.historyRecordsOption: "100"]

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
        url = directory.file("store.json")
    }

    func save(_ open: OpenStore, tags range: ClosedRange<Int>) throws {
        let context = open.context()
        for index in range {
            _ = try context.insert("Tag", values: ["label": .string("tag \(index)")])
            try context.save()
        }
    }

    @Test func aSymlinkAtTheHistoryPathIsReportedByTheCheckpointAndNotFollowed() throws {
        let target = directory.file("elsewhere")
        try Data("untouched\n".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(atPath: url.path + "-history", withDestinationPath: target.path)
        let open = try OpenStore(url, model: model, values: options)
        try save(open, tags: 1...3)
        #expect(open.store.lastHistoryError == nil)
        try open.store.checkpoint()
        let error = try #require(open.store.lastHistoryError, "the checkpoint says that history was not kept")
        #expect("\(error)".contains(url.path + "-history"), "\(error)")
        #expect("\(error)".contains("symbolic link"), "\(error)")
        #expect(try fileText(target) == "untouched\n", "the link is not followed")
        // The commits themselves are safe.
        open.close()
        let reopened = try OpenStore(url, model: model)
        #expect(reopened.store.cacheNodeCount == 3)
    }

    @Test func aHistoryThatIsWrittenAgainClearsTheError() throws {
        let link = url.path + "-history"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory.file("elsewhere").path)
        let open = try OpenStore(url, model: model, values: options)
        try save(open, tags: 1...2)
        try open.store.checkpoint()
        #expect(open.store.lastHistoryError != nil)
        try FileManager.default.removeItem(atPath: link)
        try save(open, tags: 3...4)
        try open.store.checkpoint()
        #expect(open.store.lastHistoryError == nil)
        let history = try fileText(URL(fileURLWithPath: link))
        #expect(history.hasPrefix(String(decoding: JournalFormat.header, as: UTF8.self)), "written in version 2")
        #expect(history.split(separator: "\n").count == 3, "the header and records 3 and 4")
    }

    @Test func theHistoryRecordsComeWithoutHeadersAndWithTheirChecksums() throws {
        let open = try OpenStore(url, model: model, values: options)
        try save(open, tags: 1...3)
        try open.store.checkpoint()
        try save(open, tags: 4...5)
        let lines = String(decoding: try open.store.historyRecordBytes(), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.allSatisfy { $0.hasPrefix("{\"seq\":") && $0.contains(",\"crc\":\"") })
        #expect(try open.store.checkHistoryFile()?.records == 3)
    }

    @Test func aDamagedHistoryRecordIsRefusedWithItsOffset() throws {
        let open = try OpenStore(url, model: model, values: options)
        try save(open, tags: 1...3)
        try open.store.checkpoint()
        let path = url.path + "-history"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let second = try #require(bytes.indices.filter { bytes[$0] == 0x0A }.dropFirst().first) + 1
        let tag = Array("tag 2".utf8)
        let start = try #require((second..<bytes.count).first { bytes[$0...].starts(with: tag) })
        bytes[start + 4] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let attempts: [() throws -> Void] = [{ _ = try open.store.historyRecordBytes() }, { _ = try open.store.checkHistoryFile() }]
        for attempt in attempts {
            #expect { try attempt() } throws: { error in
                guard case JSONStoreError.invalidJournal(let file, let offset, let reason) = error else { return false }
                return file == path && offset == second && reason.contains("checksum")
                    && "\(error)".contains("damaged history file")
            }
        }
        // The next checkpoint does not build on damaged history: it reports it and leaves the file.
        try save(open, tags: 4...4)
        try open.store.checkpoint()
        #expect("\(open.store.lastHistoryError.map { "\($0)" } ?? "")".contains("damaged history file"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
    }
}
