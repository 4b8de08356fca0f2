import DocumentProtocol
@testable import DocumentServer
import Foundation
import GraphCore
import JSONAtomicStore
import JSONCore
import Synchronization
import Testing

/// The engine's published states, driven in process: what a state holds after a commit, that
/// an older state keeps its view, that the wire cache never serves another version, and that
/// the writer's context does not grow.
@Suite("Engine states")
struct EngineStateTests {
    /// A writer graph on a new store file of the sample model.
    private final class Fixture {
        let directory: URL
        let graph: StoreGraph

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-state-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            JSONAtomicStore.register()
            let modelFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Sources/docserver/Resources/sample.model.json").standardized
            graph = try StoreGraph(model: try ObjectModel(contentsOf: modelFile), storeType: JSONAtomicStore.storeType,
                                   storeURL: directory.appendingPathComponent("store.json"), cache: WireObjectCache())
        }

        deinit {
            graph.close()
            try? FileManager.default.removeItem(at: directory)
        }

        /// Stages and commits one save given as JSON; returns its result.
        func save(_ params: String) throws -> JSONValue {
            let call = try Data(params.utf8).withUnsafeBytes { bytes in
                try SaveCall.parse(try JSONValue.parse(bytes), model: graph.model)
            }
            let reply = Mutex<Reply?>(nil)
            graph.stage(call) { answer in reply.withLock { $0 = answer } }
            graph.commit()
            switch reply.withLock({ $0 }) {
            case .result(let bytes)?: return try bytes.withUnsafeBytes { try JSONValue.parse($0) }
            case .error(let error)?: throw error
            case nil: throw RPCError(code: .other(0), message: "no answer", data: .null)
            }
        }

        func id(_ uri: String) throws -> ObjectID { try ObjectID(uri: uri, model: graph.model) }
    }

    private func string(_ value: JSONValue?) -> String {
        if case .string(let text)? = value { return text }
        return ""
    }

    private func text(_ reply: Reply) -> String {
        if case .result(let bytes) = reply { return String(decoding: bytes, as: UTF8.self) }
        return "\(reply)"
    }

    @Test("the writer's store keeps only the fetch indexes its uniqueness checks use; the states keep every one")
    func theWritersStoreKeepsOnlyTheIndexesOfUniquenessChecks() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-indexes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        JSONAtomicStore.register()
        let model = try ObjectModel(entities: [
            EntityDescription("Person", attributes: [AttributeDescription("email", .string), AttributeDescription("age", .int64)],
                              uniquenessConstraints: [["email"]],
                              fetchIndexes: [FetchIndexDescription(name: "byEmail", elements: [.init(.property("email"))]),
                                             FetchIndexDescription(name: "byAge", elements: [.init(.property("age"))])]),
        ])
        let graph = try StoreGraph(model: model, storeType: JSONAtomicStore.storeType,
                                   storeURL: directory.appendingPathComponent("store.json"), cache: WireObjectCache())
        defer { graph.close() }
        let call = try Data(#"{"insert":[{"id":"p","entity":"Person","values":{"email":"a@b.c","age":36}}]}"#.utf8).withUnsafeBytes { bytes in
            try SaveCall.parse(try JSONValue.parse(bytes), model: model)
        }
        graph.stage(call) { _ in }
        graph.commit()
        let store = try #require(graph.store as? AtomicStore)
        #expect(try store.explain(FetchRequest(entityName: "Person", predicate: .key("email") == "a@b.c")).access != .scan)
        #expect(try store.explain(FetchRequest(entityName: "Person", predicate: .key("age") == 36)).access == .scan)
        let person = try #require(model.entity(named: "Person"))
        #expect(graph.state.indexes.equalityMatches(.key("age") == 36, ofEntity: person, atMost: 8)?.references.count == 1)
        #expect(graph.state.indexes.equalityMatches(.key("email") == "a@b.c", ofEntity: person, atMost: 8)?.references.count == 1)
    }

    @Test("each commit gets the next number, in its save result and in the published state")
    func commitsAreNumbered() throws {
        let fixture = try Fixture()
        #expect(fixture.graph.publisher.current.sequence == 0)
        let first = try fixture.save(#"{"insert":[{"id":"a","entity":"Album","values":{"title":"Blue Train"}}]}"#)
        #expect(first["seq"] == .integer(1))
        let album = string(first["ids"]?["a"])
        let second = try fixture.save(#"{"update":[{"id":"\#(album)","version":1,"values":{"title":"Lush Life"}}]}"#)
        #expect(second["seq"] == .integer(2))
        #expect(fixture.graph.publisher.current.sequence == 2)
        #expect(fixture.graph.publisher.current.snapshot(of: try fixture.id(album))?.version == 2)
    }

    @Test("a state taken before a commit keeps reading what it held; the next state holds the commit")
    func olderStateKeepsItsView() throws {
        let fixture = try Fixture()
        let saved = try fixture.save(#"{"insert":[{"id":"a","entity":"Album","values":{"title":"Blue Train","songs":["s"]}},{"id":"s","entity":"Song","values":{"title":"Locomotion"}}]}"#)
        let album = try fixture.id(string(saved["ids"]?["a"])), song = try fixture.id(string(saved["ids"]?["s"]))
        let before = fixture.graph.publisher.current
        _ = try fixture.save(#"{"delete":[{"id":"\#(album.uriRepresentation)","version":1}]}"#)  // cascades to the song
        let after = fixture.graph.publisher.current
        #expect(before.snapshot(of: album)?.value(forKey: "title") == .string("Blue Train"))
        #expect(before.snapshot(of: song) != nil)
        #expect(before.objectCount == 2)
        #expect(after.snapshot(of: album) == nil && after.snapshot(of: song) == nil)
        #expect(after.objectCount == 0)
    }

    @Test("a reader on an older state never answers the bytes a newer state cached, nor the reverse")
    func cacheServesOnlyTheStatesVersion() throws {
        let fixture = try Fixture()
        let saved = try fixture.save(#"{"insert":[{"id":"a","entity":"Album","values":{"title":"Old"}}]}"#)
        let album = string(saved["ids"]?["a"])
        let get = GetCall(ids: [try fixture.id(album)])
        let old = StoreReader(state: fixture.graph.publisher.current, cache: fixture.graph.cache, maximumAnswerBytes: .max)
        _ = try fixture.save(#"{"update":[{"id":"\#(album)","version":1,"values":{"title":"New"}}]}"#)
        #expect(text(fixture.graph.reader.get(get)).contains(#""title":"New""#))  // caches version 2
        #expect(text(old.get(get)).contains(#""title":"Old""#))
        #expect(text(fixture.graph.reader.get(get)).contains(#""title":"New""#))  // the old reader cached version 1
    }

    @Test("the writer's context forgets every object after each commit, so it does not grow with the saves it serves")
    func writerContextDoesNotGrow() throws {
        let fixture = try Fixture()
        let saved = try fixture.save(#"{"insert":[{"id":"a","entity":"Album","values":{"title":"Giant Steps"}}]}"#)
        let album = string(saved["ids"]?["a"])
        for index in 0..<20 {
            _ = try fixture.save(#"{"insert":[{"id":"s","entity":"Song","values":{"title":"Take \#(index)","album":"\#(album)"}}]}"#)
        }
        #expect(fixture.graph.context.registeredObjects.isEmpty)
        #expect(fixture.graph.publisher.current.snapshot(of: try fixture.id(album))?.version == 21)
    }

    @Test("state keys of distinct references never share a hash, and a state finds every object by its ID")
    func stateKeysAreOneToOne() throws {
        let fixture = try Fixture()
        let model = fixture.graph.model
        let song = try #require(model.entity(named: "Song"))
        let store = fixture.graph.store.identifier
        let references: [ReferenceObject] = (0..<5_000).map { .int(Int64($0)) }
            + [.int(1 << 30), .int((1 << 30) + 1), .int(Int64.max), .int(-1), .string("a"), .string("b")]
        let ids = references.map { ObjectID(entity: song, storeIdentifier: store, reference: $0) }
        let hashes = Set(ids.map { StateKey($0)._rawHashValue(seed: 0) })
        #expect(hashes.count == ids.count)
        let snapshots = ids.map { ObjectSnapshot(objectID: $0, version: 1, values: song.properties.map { _ in .null }) }
        let state = ReadState(sequence: 0, storeIdentifier: store, model: model, snapshots: snapshots)
        #expect(state.objectCount == ids.count)
        #expect(ids.allSatisfy { state.storedSnapshot(of: $0)?.objectID == $0 })
    }

    @Test("an entity's objects hold integer and string references apart, and walk the integer ones first")
    func entityObjectsHoldBothKindsOfReference() throws {
        let fixture = try Fixture()
        let song = try #require(fixture.graph.model.entity(named: "Song"))
        let store = fixture.graph.store.identifier
        let references: [ReferenceObject] = [.string("b"), .int(3), .int(1), .string("a"), .int(40), .int(2)]
        var objects = EntityObjects()
        for reference in references {
            let id = ObjectID(entity: song, storeIdentifier: store, reference: reference)
            objects[id] = ObjectSnapshot(objectID: id, version: 1, values: song.properties.map { _ in .null })
        }
        #expect(objects.count == 6 && objects.values.count == 6 && !objects.values.isEmpty)
        let walked = objects.values.map(\.objectID.referenceObject)
        #expect(Set(walked.prefix(4).map(\.description)) == ["1", "2", "3", "40"])
        #expect(Set(walked.suffix(2).map(\.description)) == ["a", "b"])
        #expect(objects[ReferenceObject.string("a")]?.objectID.referenceObject == .string("a"))
        #expect(objects[ReferenceObject.int(40)]?.version == 1)
        #expect(objects[ReferenceObject.int(4)] == nil && objects[ReferenceObject.string("c")] == nil)
        objects[ReferenceObject.string("a")] = nil
        objects[ReferenceObject.int(3)] = nil
        #expect(objects.count == 4)
        #expect(objects.values.map(\.objectID.referenceObject).count == 4)
        #expect(objects[ReferenceObject.int(3)] == nil && objects[ReferenceObject.string("a")] == nil)
        #expect(EntityObjects().values.isEmpty)
    }
}
