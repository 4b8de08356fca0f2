import DocumentProtocol
@testable import DocumentServer
import Foundation
import GraphCore
@testable import JSONAtomicStore
import JSONCore
import Synchronization
import Testing

/// Saves that only set attributes skip the contexts (`StoreGraph+DirectUpdate`). Each test runs
/// the same saves on two store files, one graph staging them directly and one the general way,
/// and expects the same answers, errors, objects and journal records from both.
@Suite("Direct updates")
struct DirectUpdateTests {
    /// One graph on a new store file of the sample model (with value rules on `Song.rating`).
    private final class Fixture {
        let directory: URL
        let graph: StoreGraph
        private let replies = Replies()

        init(direct: Bool) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("direct-update-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            JSONAtomicStore.register()
            let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Sources/docserver/Resources/sample.model.json").standardized
            // rating between 0 and 5: a value rule a direct update must check as a context does.
            let text = try String(contentsOf: sample, encoding: .utf8)
                .replacingOccurrences(of: #""name": "rating", "type": "double""#,
                                      with: #""name": "rating", "type": "double", "minValue": 0, "maxValue": 5"#)
            #expect(text.contains(#""maxValue": 5"#), "the sample model's rating attribute is written as this test expects")
            let modelFile = directory.appendingPathComponent("model.json")
            try text.write(to: modelFile, atomically: true, encoding: .utf8)
            graph = try StoreGraph(model: try ObjectModel(contentsOf: modelFile), storeType: JSONAtomicStore.storeType,
                                   storeURL: directory.appendingPathComponent("store.json"), cache: WireObjectCache())
            graph.stagesDirectUpdates = direct
        }

        deinit {
            graph.close()
            try? FileManager.default.removeItem(at: directory)
        }

        var storeIdentifier: String { graph.store.identifier }

        /// Stages a save given as JSON, `graph://S/` standing for this store's IDs.
        func stage(_ tag: String, _ params: String) throws {
            let text = params.replacingOccurrences(of: "graph://S/", with: "graph://\(storeIdentifier)/")
            let call = try Data(text.utf8).withUnsafeBytes { bytes in
                try SaveCall.parse(try JSONValue.parse(bytes), model: graph.model)
            }
            let replies = self.replies
            graph.stage(call) { reply in replies.record(tag, reply) }
        }

        /// The answer to `tag` with this store's identifier written `S`: a result's text, or
        /// "error" and the error's code and message.
        func answer(_ tag: String) -> String? {
            let text: String?
            switch replies.reply(tag) {
            case .result(let bytes)?: text = String(decoding: bytes, as: UTF8.self)
            case .error(let error)?: text = "error \(error.code) \(error.message) \(error.data)"
            case nil: text = nil
            }
            return text?.replacingOccurrences(of: storeIdentifier, with: "S")
        }

        /// An object's version and values as the graph's state holds them.
        func object(_ uri: String) throws -> String {
            let id = try ObjectID(uri: uri.replacingOccurrences(of: "graph://S/", with: "graph://\(storeIdentifier)/"), model: graph.model)
            guard let snapshot = graph.snapshot(of: id) else { return "none" }
            return "\(snapshot.version) \(snapshot.values)".replacingOccurrences(of: storeIdentifier, with: "S")
        }

        /// The journal's records without their times (nor their checksums, which cover the times), `S` for the store's identifier.
        func journal() throws -> [String] {
            let text = try String(contentsOfFile: directory.appendingPathComponent("store.json-journal").path, encoding: .utf8)
            return text.split(separator: "\n").map { line in
                line.replacingOccurrences(of: storeIdentifier, with: "S")
                    .replacingOccurrences(of: #""time":"[^"]*""#, with: "", options: .regularExpression)
                    .replacingOccurrences(of: #""crc":"[^"]*""#, with: "", options: .regularExpression)
            }
        }
    }

    private final class Replies: Sendable {
        private let replies = Mutex<[String: Reply]>([:])

        func record(_ tag: String, _ reply: Reply) { replies.withLock { $0[tag] = reply } }
        func reply(_ tag: String) -> Reply? { replies.withLock { $0[tag] } }
    }

    /// Both ways, side by side, each with an album and two songs (graph://S/Album/1, Song/2, Song/3).
    private struct Pair {
        let direct: Fixture
        let general: Fixture
        var both: [Fixture] { [direct, general] }

        init() throws {
            direct = try Fixture(direct: true)
            general = try Fixture(direct: false)
            for fixture in both {
                try fixture.stage("seed", #"{"insert":[{"id":"a","entity":"Album","values":{"title":"Blue Train"}},"#
                    + #"{"id":"s","entity":"Song","values":{"title":"Moment's Notice","album":"a"}},"#
                    + #"{"id":"t","entity":"Song","values":{"title":"Locomotion","album":"a","rating":4}}]}"#)
                fixture.graph.commit()
            }
            #expect(direct.answer("seed") == general.answer("seed"))
            #expect(try direct.object("graph://S/Song/2") != "none")
        }

        func stage(_ tag: String, _ params: String) throws {
            for fixture in both { try fixture.stage(tag, params) }
        }

        func commit() {
            for fixture in both { fixture.graph.commit() }
        }

        /// Every answer, object and journal record the same both ways.
        func expectSame(_ tags: [String], objects: [String] = ["graph://S/Album/1", "graph://S/Song/2", "graph://S/Song/3"],
                        sourceLocation: SourceLocation = #_sourceLocation) throws {
            for tag in tags {
                #expect(direct.answer(tag) != nil, "\(tag) answered", sourceLocation: sourceLocation)
                #expect(direct.answer(tag) == general.answer(tag), "\(tag)", sourceLocation: sourceLocation)
            }
            for object in objects {
                #expect(try direct.object(object) == general.object(object), "\(object)", sourceLocation: sourceLocation)
            }
            let records = (try direct.journal(), try general.journal())
            #expect(records.0.count == records.1.count, "journal records", sourceLocation: sourceLocation)
            for (one, other) in zip(records.0, records.1) {
                #expect(one == other, sourceLocation: sourceLocation)
            }
            #expect(direct.graph.state.sequence == general.graph.state.sequence, sourceLocation: sourceLocation)
        }
    }

    @Test("an update of attributes is staged without contexts and answered, written and published as the general way does")
    func updateOfAttributes() throws {
        let pair = try Pair()
        try pair.stage("update", #"{"update":[{"id":"graph://S/Song/2","version":1,"values":{"plays":7,"rating":4.5,"title":"Moment’s Notice"}}]}"#)
        #expect(pair.direct.graph.direct.count == 1, "staged directly")
        #expect(pair.general.graph.direct.isEmpty)
        #expect(pair.direct.answer("update") == nil, "answered once durable")
        pair.commit()
        try pair.expectSame(["update"])
        #expect(try pair.direct.object("graph://S/Song/2").hasPrefix("2 "))
    }

    @Test("conflicts, missing objects, null for a required attribute, broken value rules and saves that change nothing answer alike")
    func refusalsAnswerAlike() throws {
        let pair = try Pair()
        let saves = [
            ("stale", #"{"update":[{"id":"graph://S/Song/2","version":7,"values":{"plays":1}}]}"#),
            ("missing", #"{"update":[{"id":"graph://S/Song/99","version":1,"values":{"plays":1}}]}"#),
            ("null", #"{"update":[{"id":"graph://S/Song/2","version":1,"values":{"title":null,"plays":3}}]}"#),
            ("rule", #"{"update":[{"id":"graph://S/Song/2","version":1,"values":{"rating":9}},{"id":"graph://S/Song/3","version":1,"values":{"rating":-1}}]}"#),
            ("same", #"{"update":[{"id":"graph://S/Song/3","version":1,"values":{"rating":4,"plays":0}}]}"#),
            ("optional", #"{"update":[{"id":"graph://S/Song/3","version":1,"values":{"rating":null}}]}"#),
        ]
        for (tag, params) in saves {
            try pair.stage(tag, params)
            pair.commit()
        }
        try pair.expectSame(saves.map(\.0))
        #expect(pair.direct.answer("rule")?.hasPrefix("error") == true)
        #expect(pair.direct.answer("null")?.contains("title") == true)
    }

    @Test("a turn mixing both ways commits each group before the other, and keeps every change")
    func mixedTurn() throws {
        let pair = try Pair()
        // Direct, then a save of the general way that changes the album through an inverse,
        // then direct on the album again, then general on a song the first direct save changed.
        try pair.stage("title", #"{"update":[{"id":"graph://S/Album/1","version":1,"values":{"title":"Blue Train (1957)"}}]}"#)
        try pair.stage("insert", #"{"insert":[{"id":"n","entity":"Song","values":{"title":"I'm Old Fashioned","album":"graph://S/Album/1"}}]}"#)
        #expect(pair.direct.answer("title") != nil, "the save of the same album committed before the insert was staged")
        try pair.stage("price", #"{"update":[{"id":"graph://S/Album/1","version":3,"values":{"price":"9.99"}}]}"#)
        try pair.stage("plays", #"{"update":[{"id":"graph://S/Song/2","version":1,"values":{"plays":12}}]}"#)
        try pair.stage("tag", #"{"insert":[{"id":"g","entity":"Tag","values":{"label":"hard bop","songs":["graph://S/Song/2"]}}]}"#)
        pair.commit()
        try pair.expectSame(["title", "insert", "price", "plays", "tag"],
                            objects: ["graph://S/Album/1", "graph://S/Song/2", "graph://S/Song/3", "graph://S/Song/4", "graph://S/Tag/5"])
        let album = try pair.direct.object("graph://S/Album/1")
        #expect(album.hasPrefix("4 ") && album.contains("Blue Train (1957)") && album.contains("Song/4"), "\(album)")
        #expect(try pair.direct.object("graph://S/Song/2").hasPrefix("3 "), "plays, then the tag's inverse")
    }

    @Test("a save of the general way joins a group of direct updates, and an update joins a group of the general way: one commit each")
    func mixedSavesShareACommit() throws {
        let pair = try Pair()
        let before = pair.direct.graph.state.sequence
        try pair.stage("plays", #"{"update":[{"id":"graph://S/Song/2","version":1,"values":{"plays":5}}]}"#)
        try pair.stage("tag", #"{"insert":[{"id":"g","entity":"Tag","values":{"label":"modal"}}]}"#)
        #expect(pair.direct.graph.direct.isEmpty, "moved into the context")
        try pair.stage("rating", #"{"update":[{"id":"graph://S/Song/3","version":1,"values":{"rating":3.5}}]}"#)
        #expect(pair.direct.graph.direct.isEmpty, "staged the general way beside the others")
        #expect(pair.direct.answer("plays") == nil && pair.direct.answer("tag") == nil && pair.direct.answer("rating") == nil)
        pair.commit()
        try pair.expectSame(["plays", "tag", "rating"], objects: ["graph://S/Song/2", "graph://S/Song/3", "graph://S/Tag/4"])
        #expect(pair.direct.graph.state.sequence == before + 3)
        #expect(try pair.direct.object("graph://S/Song/2").contains("5"))
    }

    @Test("when the durable write of direct updates fails, each is refused and nothing changes; the same saves then go through")
    func failedWriteChangesNothing() throws {
        let pair = try Pair()
        let journal = try pair.direct.journal()
        // The next append writes its bytes, then fails as a full disk would.
        guard let store = pair.direct.graph.store as? JSONAtomicStore else { Issue.record("not a JSON store"); return }
        store.journal.failNextAppendAfterWriting = true
        try pair.direct.stage("one", #"{"update":[{"id":"graph://S/Song/2","version":1,"values":{"plays":1}}]}"#)
        try pair.direct.stage("two", #"{"update":[{"id":"graph://S/Song/3","version":1,"values":{"plays":2}}]}"#)
        #expect(!pair.direct.graph.direct.isEmpty, "staged directly")
        pair.direct.graph.commit()
        #expect(pair.direct.answer("one")?.hasPrefix("error \(RPCError.Code.storeUnavailable)") == true, "\(pair.direct.answer("one") ?? "")")
        #expect(pair.direct.answer("two")?.hasPrefix("error \(RPCError.Code.storeUnavailable)") == true)
        #expect(pair.direct.graph.direct.isEmpty)
        #expect(try pair.direct.object("graph://S/Song/2") == pair.general.object("graph://S/Song/2"), "still version 1, as the other store")
        #expect(try pair.direct.object("graph://S/Song/3") == pair.general.object("graph://S/Song/3"))

        #expect(try pair.direct.journal() == journal, "the failed append's bytes are not kept")
        try pair.stage("again", #"{"update":[{"id":"graph://S/Song/2","version":1,"values":{"plays":1}}]}"#)
        pair.commit()
        try pair.expectSame(["again"])
    }

    @Test("direct saves of different objects share one commit: one append, a record and a number each")
    func directSavesShareACommit() throws {
        let pair = try Pair()
        let before = pair.direct.graph.state.sequence
        try pair.stage("one", #"{"update":[{"id":"graph://S/Song/2","version":1,"values":{"plays":1}}]}"#)
        try pair.stage("two", #"{"update":[{"id":"graph://S/Song/3","version":1,"values":{"plays":2}}]}"#)
        try pair.stage("again", #"{"update":[{"id":"graph://S/Song/2","version":2,"values":{"plays":3}}]}"#)
        #expect(pair.direct.answer("one") != nil && pair.direct.answer("two") != nil, "the same object again commits the group first")
        pair.commit()
        try pair.expectSame(["one", "two", "again"])
        #expect(pair.direct.graph.state.sequence == before + 3)
        #expect(pair.direct.answer("one")?.contains(#""seq":\#(before + 1)"#) == true)
        #expect(pair.direct.answer("two")?.contains(#""seq":\#(before + 2)"#) == true)
    }
}
