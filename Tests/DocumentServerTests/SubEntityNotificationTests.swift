import Foundation
import ServerTestSupport
import Testing

/// A subscription of an entity gets the commits of its sub-entities' objects too, and none of
/// the commits that change only other entities (which the feed skips before judging them).
@Suite struct SubEntityNotificationTests {
    static let model = """
    {"entities": [{"name": "Animal", "attributes": [{"name": "name", "type": "string"}]},
                  {"name": "Dog", "parent": "Animal", "attributes": [{"name": "age", "type": "int16"}]},
                  {"name": "Tag", "attributes": [{"name": "label", "type": "string"}]}]}
    """

    @Test func aSubscriptionOfAParentEntitySeesItsSubEntitiesAndNothingElse() throws {
        let directory = try TemporaryDirectory()
        let modelURL = directory.file("model.json")
        try Data(Self.model.utf8).write(to: modelURL)
        let server = try ServerProcess(in: directory, arguments: ["--model", modelURL.path])
        let animals = try server.connect(), named = try server.connect(), dogs = try server.connect()
        let writer = try server.connect()
        _ = try animals.result("subscribe", ["entity": "Animal"])
        _ = try named.result("subscribe", ["entity": "Animal", "predicate": "name BEGINSWITH %@", "arguments": ["R"]])
        _ = try dogs.result("subscribe", ["entity": "Dog", "includeValues": false])

        // Commits of other entities only: nothing for any of the three.
        _ = try writer.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "jazz"]]]])
        let cat = try writer.result("save", ["insert": [["id": "a", "entity": "Animal", "values": ["name": "Rex the cat"]]]])
        let dog = try writer.result("save", ["insert": [["id": "d", "entity": "Dog", "values": ["name": "Rover", "age": 3]]]])
        let catID = try #require(cat["ids"]["a"].string), dogID = try #require(dog["ids"]["d"].string)

        var note = try JSON(parsing: animals.readLine())["params"]
        #expect(note["seq"].int == cat["seq"].int, "the Tag commit sent nothing")
        #expect(note["inserted"].array?.compactMap { $0["id"].string } == [catID])
        note = try JSON(parsing: animals.readLine())["params"]
        #expect(note["seq"].int == dog["seq"].int)
        #expect(note["inserted"].array?.compactMap { $0["id"].string } == [dogID], "a Dog is an Animal")
        #expect(note["inserted"][0]["values"]["age"].int == 3)

        note = try JSON(parsing: named.readLine())["params"]
        #expect(note["seq"].int == cat["seq"].int)
        note = try JSON(parsing: named.readLine())["params"]
        #expect(note["inserted"].array?.compactMap { $0["id"].string } == [dogID], "the live query judges the Dog")

        note = try JSON(parsing: dogs.readLine())["params"]
        #expect(note["seq"].int == dog["seq"].int, "the Tag and the Animal commits sent nothing")
        #expect(note["inserted"][0]["values"].isMissing)
        try server.stop()
    }
}
