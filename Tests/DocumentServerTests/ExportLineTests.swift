import DocumentProtocol
import Foundation
import GraphCore
import JSONAtomicStore
import JSONCore
import ServerTestSupport
import Testing

/// `docserver export` writes its object lines with its own byte writer (`ExportLineEncoder`),
/// not through yajl: each line must be byte for byte what the protocol's `WireObjectEncoder`
/// writes for the same object, whatever its values.
@Suite struct ExportLineTests {
    @Test func everyExportedLineIsByteForByteTheWireFormTheProtocolWrites() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let data = try SampleData.insert(through: client)
        // Every byte below 0x20, the characters JSON escapes, a solidus, DEL, non-ASCII and an emoji.
        let awkward = String(decoding: (1..<0x20).map { UInt8($0) }, as: UTF8.self) + "\"\\/\u{7F} ünïcødé 🎵 end"
        _ = try client.result("save", ["insert": [
            ["id": "t1", "entity": "Tag", "values": ["label": awkward]],
            ["id": "t2", "entity": "Tag", "values": ["label": ""]],
            ["id": "t3", "entity": "Tag", "values": ["label": "third"]],
            ["id": "a", "entity": "Album", "values": ["title": "Cover", "cover": "AAECAwT/", "price": "-0.000123",
                                                      "released": "2001-02-03T04:05:06.789Z"]],
            ["id": "s", "entity": "Song", "values": ["title": "Not a number", "rating": "NaN", "plays": -42,
                                                     "uid": "1b4e28ba-2fa1-11d2-883f-0016d3cca427", "album": "a",
                                                     "tags": ["t3", "t1", "t2"]]],
            ["id": "s2", "entity": "Song", "values": ["title": "Large", "rating": 1.0e-300, "plays": Int64.max]],
            ["id": "s3", "entity": "Song", "values": ["title": "Infinite", "rating": "-Infinity", "plays": Int64.min]],
        ]])
        _ = try client.result("save", ["update": [["id": data["s1"], "version": 1, "values": ["tags": [], "rating": 0.1]]]])
        try server.stop()

        let exported = try runDocServer(["export", "--store", server.storeURL.path])
        #expect(exported.status == 0, "\(exported.errors)")
        let lines = Array(exported.output.split(separator: "\n", omittingEmptySubsequences: false).dropFirst())

        JSONAtomicStore.register()
        let modelFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/docserver/Resources/sample.model.json").standardized
        let model = try ObjectModel(contentsOf: modelFile)
        let coordinator = StoreCoordinator(model: model)
        var options = StoreOptions()
        options.isReadOnly = true
        let store = try #require(try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: server.storeURL,
                                                                    options: options) as? AtomicStore)
        var expected: [String] = []
        for entity in model.entities.filter({ !$0.isAbstract }).sorted(by: { $0.name < $1.name }) {
            let snapshots = store.cacheNodes(ofEntity: entity.name).sorted { WireObjectEncoder.referenceOrder($0.objectID, $1.objectID) }
            for snapshot in snapshots {
                let out = try JSONGenerator()
                try WireObjectEncoder.write(snapshot, to: out)
                var bytes: [UInt8] = []
                try out.flush { bytes.append(contentsOf: $0) }
                expected.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        expected.append("")  // the last line's line feed
        #expect(expected.count == 18)
        #expect(lines.count == expected.count)
        for (line, wire) in zip(lines, expected) {
            #expect(String(line) == wire)
        }
    }
}
