import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// Checkpoints keep the newest journal records in `<store file>-history` (the history a server
/// answers `since` from), and a save of several writers' parts appends one record per part.
struct HistoryFileTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    let url: URL

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
        url = directory.file("store.json")
    }

    private func sequences(_ bytes: [UInt8]) throws -> [Int] {
        try String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { line in
            try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["seq"] as? Int)
        }
    }

    @Test func checkpointsKeepTheNewestRecordsWithinTheLimit() throws {
        let options = [JSONAtomicStore.journalCheckpointBytesOption: "600", JSONAtomicStore.historyRecordsOption: "7"]
        let open = try OpenStore(url, model: model, values: options)
        let context = open.context()
        for index in 0..<20 {
            _ = try context.insert("Tag", values: ["label": .string("tag \(index)")])
            try context.save()
            // Every record after the oldest kept is still there, in the history file or the journal.
            let kept = try sequences(open.store.historyRecordBytes())
            #expect(kept.last == index + 1)
            #expect(kept == Array((kept.first ?? 1)...(index + 1)), "no gap: \(kept)")
            #expect(kept.count >= min(index + 1, 7), "at least the retention: \(kept)")
        }
        open.close()
        let reopened = try OpenStore(url, model: model, values: options)
        #expect(try sequences(reopened.store.historyRecordBytes()) == Array(14...20), "the close's checkpoint kept 7")
    }

    @Test func withoutTheOptionCheckpointsKeepNoHistory() throws {
        let open = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "600"])
        let context = open.context()
        for index in 0..<10 {
            _ = try context.insert("Tag", values: ["label": .string("tag \(index)")])
            try context.save()
        }
        open.close()
        #expect(!FileManager.default.fileExists(atPath: url.path + "-history"))
        #expect(throws: JSONStoreError.self) {
            _ = try OpenStore(url, model: model, values: [JSONAtomicStore.historyRecordsOption: "-1"])
        }
    }
}
