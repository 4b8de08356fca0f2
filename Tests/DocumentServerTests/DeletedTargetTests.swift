import Foundation
import ServerTestSupport
import Testing

/// A relationship whose target is deleted while nothing clears it (a `noAction` inverse, or
/// no inverse at all) reads the same before and after a restart: as if cleared, without a
/// new version (`docs/PROTOCOL.md`, Edge cases).
@Suite struct DeletedTargetTests {
    static let model = #"""
        {"entities":[
          {"name":"Person","attributes":[{"name":"name","type":"string"}],
           "relationships":[
             {"name":"pets","destination":"Pet","inverse":"owner","toMany":true,"deleteRule":"noAction"},
             {"name":"best","destination":"Pet","optional":true},
             {"name":"friends","destination":"Pet","toMany":true,"optional":true}]},
          {"name":"Pet","attributes":[{"name":"name","type":"string"}],
           "relationships":[{"name":"owner","destination":"Person","inverse":"pets","optional":true}],
           "fetchIndexes":[{"name":"byOwner","elements":[{"property":"owner"}]}]}
        ]}
        """#

    @Test func aReferenceToADeletedObjectReadsAsClearedBeforeAndAfterARestartWithoutANewVersion() throws {
        let directory = try TemporaryDirectory()
        let modelURL = directory.file("pets.model.json")
        try Data(Self.model.utf8).write(to: modelURL)
        let store = directory.file("store.json")
        var server = try ServerProcess(store: store, arguments: ["--model", modelURL.path], keeping: directory)
        var client = try server.connect()
        let ids = try client.result("save", ["insert": [
            ["id": "ann", "entity": "Person", "values": ["name": "Ann", "pets": ["rex"]]],
            ["id": "bob", "entity": "Person", "values": ["name": "Bob", "best": "tom", "friends": ["tom", "rex"]]],
            ["id": "rex", "entity": "Pet", "values": ["name": "Rex"]],
            ["id": "tom", "entity": "Pet", "values": ["name": "Tom"]],
        ]])["ids"]
        let ann = ids["ann"].string ?? "", bob = ids["bob"].string ?? "", rex = ids["rex"].string ?? "", tom = ids["tom"].string ?? ""
        // Cache the wire forms first: what is cached must not outlive the deletion either.
        let before = try client.result("get", ["ids": [ann, bob, rex, tom]])["objects"]
        _ = try client.result("save", ["delete": [["id": ann, "version": before[0]["version"].int ?? 0],
                                                  ["id": tom, "version": before[3]["version"].int ?? 0]]])
        func check(_ label: String) throws {
            let objects = try client.result("get", ["ids": [rex, bob]])["objects"]
            #expect(objects[0]["values"]["owner"].isNull, "\(label): \(objects[0])")
            #expect(objects[0]["version"] == before[2]["version"], "\(label): no new version")
            #expect(objects[1]["values"]["best"].isNull, "\(label): \(objects[1])")
            #expect(objects[1]["values"]["friends"].strings == [rex], "\(label): \(objects[1])")
            #expect(objects[1]["version"] == before[1]["version"], "\(label): no new version")
            let fetched = try client.result("fetch", ["entity": "Pet"])["objects"]
            #expect(fetched[0]["values"]["owner"].isNull, "\(label): fetch \(fetched)")
        }
        try check("before a restart")
        try server.stop()
        server = try ServerProcess(store: store, arguments: ["--model", modelURL.path], keeping: directory)
        client = try server.connect()
        try check("after a restart")
        try server.stop()
    }

    /// The bug: the server's predicates (and its index on `owner`) still saw the deleted
    /// target until a restart, while `get` and a restarted server read the reference as
    /// cleared. The same fetch must answer the same before a restart, after a clean one and
    /// after a kill (the journal replayed).
    @Test func aPredicateOverAReferenceToADeletedObjectAnswersTheSameBeforeAndAfterARestart() throws {
        let directory = try TemporaryDirectory()
        let modelURL = directory.file("pets.model.json")
        try Data(Self.model.utf8).write(to: modelURL)
        let store = directory.file("store.json")
        var server = try ServerProcess(store: store, arguments: ["--model", modelURL.path], keeping: directory)
        var client = try server.connect()
        let ids = try client.result("save", ["insert": [
            ["id": "ann", "entity": "Person", "values": ["name": "Ann", "pets": ["rex"]]],
            ["id": "bob", "entity": "Person", "values": ["name": "Bob", "best": "tom", "friends": ["tom", "rex"]]],
            ["id": "cat", "entity": "Person", "values": ["name": "Cat", "pets": ["max"]]],
            ["id": "rex", "entity": "Pet", "values": ["name": "Rex"]],
            ["id": "tom", "entity": "Pet", "values": ["name": "Tom"]],
            ["id": "max", "entity": "Pet", "values": ["name": "Max"]],
        ]])["ids"]
        let ann = ids["ann"].string ?? "", tom = ids["tom"].string ?? ""
        let versions = try client.result("get", ["ids": [ann, tom]])["objects"]
        _ = try client.result("save", ["delete": [["id": ann, "version": versions[0]["version"].int ?? 0],
                                                  ["id": tom, "version": versions[1]["version"].int ?? 0]]])
        let fetches: [(entity: String, predicate: String)] = [
            ("Pet", "owner == nil"), ("Pet", "owner != nil"), ("Pet", "owner.name == nil"),
            ("Person", "best == nil"), ("Person", "best != nil"), ("Person", "friends.@count == 1"),
            ("Person", "ANY friends.name == 'Tom'"), ("Person", "pets.@count == 0"),
        ]
        func answers() throws -> [String] {
            try fetches.map { fetch in
                let objects = try client.result("fetch", ["entity": fetch.entity, "predicate": fetch.predicate])["objects"]
                let names = (objects.array ?? []).map { $0["values"]["name"].string ?? "?" }.sorted()
                return "\(fetch.entity) \(fetch.predicate): \(names)"
            }
        }
        let live = try answers()
        #expect(live == ["Pet owner == nil: [\"Rex\"]", "Pet owner != nil: [\"Max\"]", "Pet owner.name == nil: [\"Rex\"]",
                         "Person best == nil: [\"Bob\", \"Cat\"]", "Person best != nil: []", "Person friends.@count == 1: [\"Bob\"]",
                         "Person ANY friends.name == 'Tom': []", "Person pets.@count == 0: [\"Bob\"]"])
        try server.stop(signal: SIGKILL)
        server = try ServerProcess(store: store, arguments: ["--model", modelURL.path], keeping: directory)
        client = try server.connect()
        #expect(try answers() == live, "after a kill: the journal replayed")
        try server.stop()
        server = try ServerProcess(store: store, arguments: ["--model", modelURL.path], keeping: directory)
        client = try server.connect()
        #expect(try answers() == live, "after a clean stop: the snapshot written")
        try server.stop()
    }
}
