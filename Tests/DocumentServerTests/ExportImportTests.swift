import Foundation
import ServerTestSupport
import Testing

/// `docserver export` and `docserver import` against the real binary: the round trip keeps
/// every object as a server serves it, and an import refuses what it cannot take whole.
@Suite struct ExportImportTests {
    /// Every object of every entity of the sample model as `fetch` answers it, by ID.
    static func everything(_ client: LineClient) throws -> [String: String] {
        var objects: [String: String] = [:]
        for entity in ["Album", "Artist", "Song", "Tag"] {
            for object in try client.result("fetch", ["entity": entity])["objects"].array ?? [] {
                let data = try JSONSerialization.data(withJSONObject: object.value ?? NSNull(), options: [.sortedKeys])
                objects[object["id"].string ?? "?"] = String(decoding: data, as: UTF8.self)
            }
        }
        return objects
    }

    /// A store of the sample model with a catalogue, tags, an update and a deletion (some of
    /// it still in the journal); returns what a server served from it.
    static func makeStore(in directory: TemporaryDirectory) throws -> (store: URL, served: [String: String]) {
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let data = try SampleData.insert(through: client)
        _ = try client.result("save", ["insert": [["id": "t1", "entity": "Tag", "values": ["label": "modal"]],
                                                  ["id": "t2", "entity": "Tag", "values": ["label": "ünïcødé \"quoted\"\n"]]],
                                       "update": [["id": data["s1"], "version": 1,
                                                   "values": ["tags": ["t1", "t2"], "rating": 4.5,
                                                              "uid": "1b4e28ba-2fa1-11d2-883f-0016d3cca427"]]]])
        _ = try client.result("save", ["delete": [["id": data["s4"], "version": 1]]])
        let served = try everything(client)
        try server.stop()
        return (server.storeURL, served)
    }

    @Test func anExportImportedIntoANewStoreIsServedExactlyAsTheOriginal() throws {
        let directory = try TemporaryDirectory()
        let (store, served) = try Self.makeStore(in: directory)
        #expect(served.count == 11)
        let exported = directory.file("export.ndjson")
        let export = try runDocServer(["export", "--store", store.path, "--to", exported.path])
        #expect(export.status == 0, "\(export.errors)")
        let lines = String(decoding: try Data(contentsOf: exported), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 12, "a header and 11 objects")
        #expect(lines.first?.contains(#""format":"docserver-export","formatVersion":1"#) == true, "\(lines.first ?? "")")

        let copyDirectory = try TemporaryDirectory()
        let copy = copyDirectory.file("store.json")
        let imported = try runDocServer(["import", "--store", copy.path, "--from", exported.path])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("imported 11 objects"), "\(imported.output)")
        #expect(imported.errors.contains("import: "), "progress goes to standard error: \(imported.errors)")

        let server = try ServerProcess(in: copyDirectory)
        let again = try Self.everything(try server.connect())
        try server.stop()
        #expect(again == served, "the imported store serves the same objects, IDs, versions and values")

        let second = try runDocServer(["export", "--store", copy.path])
        #expect(second.status == 0, "\(second.errors)")
        #expect(second.output.split(separator: "\n").dropFirst() == lines.dropFirst(),
                "exporting the imported store gives the same object lines")
    }

    @Test func aJSONArrayImportsAsNDJSONDoesAndObjectsMayReferToLaterOnes() throws {
        let directory = try TemporaryDirectory()
        let (store, served) = try Self.makeStore(in: directory)
        let export = try runDocServer(["export", "--store", store.path])
        #expect(export.status == 0, "\(export.errors)")
        var lines = export.output.split(separator: "\n").map(String.init)
        // Songs first: each refers to its album, which comes later.
        let header = lines.removeFirst()
        lines.sort { ($0.contains(#""entity":"Song""#) ? 0 : 1) < ($1.contains(#""entity":"Song""#) ? 0 : 1) }
        let array = directory.file("export.json")
        try Data(("[" + ([header] + lines).joined(separator: ",\n") + "]").utf8).write(to: array)
        let copyDirectory = try TemporaryDirectory()
        let imported = try runDocServer(["import", "--quiet", "--store", copyDirectory.file("store.json").path, "--from", array.path])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.errors.isEmpty, "--quiet: \(imported.errors)")
        let server = try ServerProcess(in: copyDirectory)
        #expect(try Self.everything(try server.connect()) == served)
        try server.stop()
    }

    @Test func everyBadLineIsNamedByItsNumberAndNothingIsWritten() throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try Self.makeStore(in: directory)
        let export = try runDocServer(["export", "--store", store.path])
        var lines = export.output.split(separator: "\n").map(String.init)
        let uuid = lines[0].components(separatedBy: #""storeUUID":""#)[1].prefix(36)
        lines.insert(#"{"id":"graph://\#(uuid)/Tag/900","entity":"Tag","version":1,"values":{"label":"x","colour":"red"}}"#, at: 2)
        lines.insert(#"{"id":"graph://\#(uuid)/Tag/901","entity":"Tag","version":1,"values":{"label":7}}"#, at: 4)
        lines.insert(#"{"id":"graph://\#(uuid)/Tag/902","entity":"Tag","version":1,"values":{"label":"x","songs":["graph://\#(uuid)/Song/999"]}}"#, at: 6)
        lines.insert("{not json", at: 8)
        let input = directory.file("bad.ndjson")
        try Data(lines.joined(separator: "\n").utf8).write(to: input)
        let target = directory.file("new.json")
        let result = try runDocServer(["import", "--store", target.path, "--from", input.path])
        #expect(result.status == 1, "\(result.errors)")
        for (line, words) in [(3, "\"colour\" is not a property of Tag"), (5, "property \"label\": expected"),
                              (7, "no object of the import has the ID"), (9, "invalid JSON")] {
            #expect(result.errors.contains("line \(line): ") && result.errors.contains(words), "line \(line): \(result.errors)")
        }
        #expect(result.errors.contains("nothing imported: 4 bad line(s)"), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: target.path), "nothing is written")
    }

    @Test func objectsThatDoNotMakeAValidStoreAreRefusedAndNothingIsWritten() throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try Self.makeStore(in: directory)
        let lines = try runDocServer(["export", "--store", store.path]).output.split(separator: "\n").map(String.init)
        let uuid = lines[0].components(separatedBy: #""storeUUID":""#)[1].prefix(36)
        let song = try #require(lines.first { $0.contains(#""entity":"Song""#) }?.components(separatedBy: #""id":""#)[1]
            .components(separatedBy: "\"")[0])
        // Each line is valid alone; the objects together are not a store a server would load.
        for (added, words) in [
            (#"{"id":"graph://\#(uuid)/Tag/900","entity":"Tag","version":1,"values":{"label":"x","songs":["\#(song)"]}}"#,
             #"Tag 900, property "songs": lists Song"#),
            (#"{"id":"graph://\#(uuid)/Tag/901","entity":"Tag","version":1,"values":{}}"#,
             #"property "label": a value is required"#),
        ] {
            let input = directory.file("invalid.ndjson")
            try Data((lines + [added]).joined(separator: "\n").utf8).write(to: input)
            let target = directory.file("new.json")
            let result = try runDocServer(["import", "--store", target.path, "--from", input.path])
            #expect(result.status == 1, "\(result.errors)")
            #expect(result.errors.contains("the imported objects were refused, the store is unchanged") && result.errors.contains(words),
                    "\(result.errors)")
            #expect(!FileManager.default.fileExists(atPath: target.path), "nothing is written")
        }
    }

    @Test func anExportOfAnotherModelIsRefusedNamingTheEntitiesThatDiffer() throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try Self.makeStore(in: directory)
        let export = try runDocServer(["export", "--store", store.path])
        let model = directory.file("other.model.json")
        try Data(#"{"entities":[{"name":"Tag","attributes":[{"name":"label","type":"string"},{"name":"weight","type":"int64","optional":true}]}]}"#.utf8).write(to: model)
        let input = directory.file("export.ndjson")
        try Data(export.output.utf8).write(to: input)
        let result = try runDocServer(["import", "--model", model.path, "--store", directory.file("other.json").path, "--from", input.path])
        #expect(result.status == 2, "\(result.errors)")
        #expect(result.errors.contains("the export was written for a different model (sample): entities "), "\(result.errors)")
        #expect(result.errors.contains("Album, Artist, Song, Tag differ"), "\(result.errors)")
    }

    @Test func aStoreWithObjectsIsRefusedUnlessReplaceIsGiven() throws {
        let directory = try TemporaryDirectory()
        let (store, served) = try Self.makeStore(in: directory)
        let input = directory.file("export.ndjson")
        #expect(try runDocServer(["export", "--store", store.path, "--to", input.path]).status == 0)

        let other = try TemporaryDirectory()
        let server = try ServerProcess(in: other)
        _ = try server.connect().result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "old"]]]])
        let inUse = try runDocServer(["import", "--replace", "--store", server.storeURL.path, "--from", input.path])
        #expect(inUse.status == 2 && inUse.errors.contains("in use"), "a served store is refused: \(inUse.errors)")
        try server.stop()

        let refused = try runDocServer(["import", "--store", server.storeURL.path, "--from", input.path])
        #expect(refused.status == 2, "\(refused.errors)")
        #expect(refused.errors.contains("already holds 1 object(s)") && refused.errors.contains("--replace"), "\(refused.errors)")
        let replaced = try runDocServer(["import", "--replace", "--store", server.storeURL.path, "--from", input.path])
        #expect(replaced.status == 0, "\(replaced.errors)")
        let again = try ServerProcess(in: other)
        #expect(try Self.everything(try again.connect()) == served)
        try again.stop()
    }
}
