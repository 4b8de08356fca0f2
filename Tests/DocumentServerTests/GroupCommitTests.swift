import DocumentProtocol
@testable import DocumentServer
import Foundation
import GraphCore
import JSONAtomicStore
import JSONCore
import Synchronization
import Testing

/// The store thread's save path, driven directly: how saves are staged, share one durable
/// write, commit early when they touch the same objects, and fail without a trace.
@Suite("Group commit")
struct GroupCommitTests {
    /// A graph on a new store file of the sample model, with the answers it gives.
    private final class Fixture {
        let directory: URL
        let graph: StoreGraph
        let cache = WireObjectCache()
        let answers = Answers()

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("group-commit-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            JSONAtomicStore.register()
            let modelFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Sources/docserver/Resources/sample.model.json").standardized
            graph = try StoreGraph(model: try ObjectModel(contentsOf: modelFile), storeType: JSONAtomicStore.storeType,
                                   storeURL: directory.appendingPathComponent("store.json"), cache: cache)
        }

        deinit {
            graph.close()
            try? FileManager.default.removeItem(at: directory)
        }

        /// Stages a save given as JSON; its answer lands in `answers` under `tag`.
        func stage(_ tag: String, _ params: String) throws {
            let call = try Data(params.utf8).withUnsafeBytes { bytes in
                try SaveCall.parse(try JSONValue.parse(bytes), model: graph.model)
            }
            let answers = self.answers
            graph.stage(call) { reply in answers.record(tag, reply) }
        }

        /// Saves at once (stage and commit) and returns the result.
        func save(_ params: String) throws -> JSONValue {
            try stage("now", params)
            graph.commit()
            return try answers.result("now")
        }

        func version(_ id: String) throws -> Int64? {
            graph.snapshot(of: try ObjectID(uri: id, model: graph.model))?.version
        }
    }

    private final class Answers: Sendable {
        private let replies = Mutex<[String: Reply]>([:])

        func record(_ tag: String, _ reply: Reply) { replies.withLock { $0[tag] = reply } }
        func has(_ tag: String) -> Bool { replies.withLock { $0[tag] != nil } }

        func result(_ tag: String) throws -> JSONValue {
            switch replies.withLock({ $0.removeValue(forKey: tag) }) {
            case .result(let bytes)?: return try bytes.withUnsafeBytes { try JSONValue.parse($0) }
            case .error(let error)?: throw error
            case nil: throw RPCError(code: .other(0), message: "no answer for \(tag)", data: .null)
            }
        }

        func error(_ tag: String) -> RPCError? {
            if case .error(let error)? = replies.withLock({ $0[tag] }) { return error }
            return nil
        }
    }

    private func string(_ value: JSONValue?) -> String {
        if case .string(let text)? = value { return text }
        return ""
    }

    private func album(in fixture: Fixture) throws -> String {
        let result = try fixture.save(#"{"insert":[{"id":"a","entity":"Album","values":{"title":"Blue Train"}}]}"#)
        return string(result["ids"]?["a"])
    }

    @Test("saves that share no object are answered together, after one commit")
    func disjointSavesShareOneCommit() throws {
        let fixture = try Fixture()
        try fixture.stage("one", #"{"insert":[{"id":"s","entity":"Song","values":{"title":"One"}}]}"#)
        try fixture.stage("two", #"{"insert":[{"id":"s","entity":"Song","values":{"title":"Two"}}]}"#)
        #expect(!fixture.answers.has("one") && !fixture.answers.has("two"))  // nothing is durable yet
        fixture.graph.commit()
        let one = try fixture.answers.result("one"), two = try fixture.answers.result("two")
        #expect(string(one["ids"]?["s"]) != string(two["ids"]?["s"]))
        #expect(try fixture.version(string(two["ids"]?["s"])) == 1)
    }

    @Test("saves of several authors in one group commit get one journal record each: their own seq and author, one append")
    func eachSaveOfAGroupCommitHasItsOwnRecordAndAuthor() throws {
        let fixture = try Fixture()
        func stage(_ tag: String, author: String?) throws {
            var call = try Data(#"{"insert":[{"id":"t","entity":"Tag","values":{"label":"\#(tag)"}}]}"#.utf8).withUnsafeBytes { bytes in
                try SaveCall.parse(try JSONValue.parse(bytes), model: fixture.graph.model)
            }
            call.author = author
            let answers = fixture.answers
            fixture.graph.stage(call) { reply in answers.record(tag, reply) }
        }
        let before = fixture.graph.state.sequence
        try stage("ann", author: "ann")
        try stage("bob", author: "bob")
        try stage("nobody", author: nil)
        fixture.graph.commit()
        let seqs = try ["ann", "bob", "nobody"].map { try fixture.answers.result($0)["seq"] }
        #expect(seqs == [.integer(before + 1), .integer(before + 2), .integer(before + 3)])
        #expect(fixture.graph.state.sequence == before + 3)
        let journal = try String(contentsOfFile: fixture.directory.appendingPathComponent("store.json-journal").path, encoding: .utf8)
        let records = journal.split(separator: "\n").suffix(3).map { line in try? Array(line.utf8).withUnsafeBytes { try JSONValue.parse($0) } }
        #expect(records.map { $0?["author"] } == [.string("ann"), .string("bob"), nil])
        #expect(records.map { $0?["seq"] } == seqs)
        #expect(records.allSatisfy { $0?["time"] == records.first??["time"] }, "one commit, one time")
    }

    @Test("a save changing an object an earlier staged save changed commits that one first, so each gets its own version")
    func overlappingSavesCommitInTurn() throws {
        let fixture = try Fixture()
        let album = try album(in: fixture)
        // Both inserts change the album through the inverse of Song.album.
        try fixture.stage("first", #"{"insert":[{"id":"s","entity":"Song","values":{"title":"Moment's Notice","album":"\#(album)"}}]}"#)
        try fixture.stage("second", #"{"insert":[{"id":"s","entity":"Song","values":{"title":"Locomotion","album":"\#(album)"}}]}"#)
        #expect(fixture.answers.has("first"))   // committed when the second touched the album
        #expect(!fixture.answers.has("second"))
        fixture.graph.commit()
        let first = try fixture.answers.result("first"), second = try fixture.answers.result("second")
        #expect(first["versions"]?[album] == .integer(2))
        #expect(second["versions"]?[album] == .integer(3))
        #expect(first["updated"] == .array([.string(album)]))
        #expect(try fixture.version(album) == 3)
    }

    @Test("an update naming an object a staged save changed waits for that commit and is checked against the new version")
    func namedObjectIsCheckedAfterTheEarlierCommit() throws {
        let fixture = try Fixture()
        let album = try album(in: fixture)
        try fixture.stage("first", #"{"update":[{"id":"\#(album)","version":1,"values":{"title":"A"}}]}"#)
        try fixture.stage("stale", #"{"update":[{"id":"\#(album)","version":1,"values":{"title":"B"}}]}"#)
        fixture.graph.commit()
        #expect(try fixture.answers.result("first")["versions"]?[album] == .integer(2))
        let conflict = try #require(fixture.answers.error("stale"))
        #expect(conflict.code == RPCError.Code.conflict)
        #expect(conflict.data["conflicts"] == .array([.object([("id", .string(album)), ("expected", .integer(1)), ("current", .integer(2))])]))
    }

    @Test("an invalid save in a group fails alone; the others commit")
    func invalidSaveFailsAlone() throws {
        let fixture = try Fixture()
        try fixture.stage("good", #"{"insert":[{"id":"s","entity":"Song","values":{"title":"Good"}}]}"#)
        try fixture.stage("bad", #"{"insert":[{"id":"s","entity":"Song","values":{"plays":1}}]}"#)
        #expect(fixture.answers.error("bad")?.code == RPCError.Code.validation)  // answered at once
        fixture.graph.commit()
        let good = try fixture.answers.result("good")
        #expect(try fixture.version(string(good["ids"]?["s"])) == 1)
        let count = try FetchCall.parse(try #"{"entity":"Song","resultType":"count"}"#.withParsedJSON(), model: fixture.graph.model,
                                        predicates: PredicateCache(model: fixture.graph.model))
        guard case .result(let bytes) = fixture.graph.reader.fetch(count) else { Issue.record("fetch failed"); return }
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"count":1}"#)
    }

    @Test("when the durable write fails, every save of the group is refused and nothing changes, in memory or in the cache")
    func failedWriteChangesNothing() throws {
        let fixture = try Fixture()
        let album = try album(in: fixture)
        let get = GetCall(ids: [try ObjectID(uri: album, model: fixture.graph.model)])
        _ = fixture.graph.reader.get(get)  // fills the cache
        #expect(fixture.cache.cachedEntries(get.ids) != nil)

        // The store's directory disappears: the temporary file of the next write cannot be made.
        try FileManager.default.removeItem(at: fixture.directory)
        try fixture.stage("rename", #"{"update":[{"id":"\#(album)","version":1,"values":{"title":"Lost"}}]}"#)
        try fixture.stage("insert", #"{"insert":[{"id":"s","entity":"Song","values":{"title":"Lost too"}}]}"#)
        fixture.graph.commit()
        #expect(fixture.answers.error("rename")?.code == RPCError.Code.storeUnavailable)
        #expect(fixture.answers.error("insert")?.code == RPCError.Code.storeUnavailable)
        #expect(try fixture.version(album) == 1)
        #expect(fixture.cache.cachedEntries(get.ids) != nil)
        guard case .result(let bytes) = fixture.graph.reader.get(get) else { Issue.record("get failed"); return }
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""title":"Blue Train""#))

        // Once the directory is back, the same save goes through.
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        let saved = try fixture.save(#"{"update":[{"id":"\#(album)","version":1,"values":{"title":"Found"}}]}"#)
        #expect(saved["versions"]?[album] == .integer(2))
        #expect(fixture.cache.cachedEntries(get.ids) == nil)  // the commit removed the old form
    }

    @Test("a cascade deletion reports every deleted object and leaves no cached copy behind")
    func cascadeIsReported() throws {
        let fixture = try Fixture()
        let saved = try fixture.save(#"{"insert":[{"id":"a","entity":"Album","values":{"title":"Giant Steps","songs":["s1","s2"]}},{"id":"s1","entity":"Song","values":{"title":"Naima"}},{"id":"s2","entity":"Song","values":{"title":"Mr. P.C."}}]}"#)
        let album = string(saved["ids"]?["a"]), songs = [string(saved["ids"]?["s1"]), string(saved["ids"]?["s2"])]
        let ids = try ([album] + songs).map { try ObjectID(uri: $0, model: fixture.graph.model) }
        _ = fixture.graph.reader.get(GetCall(ids: ids))
        let deleted = try fixture.save(#"{"delete":[{"id":"\#(album)","version":1}]}"#)
        guard case .array(let list)? = deleted["deleted"] else { Issue.record("no deleted list"); return }
        #expect(Set(list.map { string($0) }) == Set([album] + songs))
        #expect(fixture.cache.cachedEntries([ids[1]]) == nil)
        #expect(try fixture.version(songs[0]) == nil)
    }
}

private extension String {
    func withParsedJSON() throws -> JSONValue {
        try Data(utf8).withUnsafeBytes { try JSONValue.parse($0) }
    }
}
