import Foundation
import ServerTestSupport
import Testing

/// An object ID may name the object's entity or one of its ancestors (`docs/MODEL.md`,
/// Inheritance); answers always name the object's own entity.
@Suite struct InheritedIDTests {
    static let model = #"""
        {"entities":[
          {"name":"Animal","abstract":true,"attributes":[{"name":"name","type":"string"}]},
          {"name":"Dog","parent":"Animal","attributes":[{"name":"barks","type":"bool","optional":true}]},
          {"name":"Cat","parent":"Animal"},
          {"name":"Owner","attributes":[{"name":"name","type":"string"}],
           "relationships":[{"name":"pet","destination":"Animal","optional":true}]}
        ]}
        """#

    @Test func anIDNamingAParentEntityReachesTheObjectAndAnswersNameItsOwnEntity() throws {
        let directory = try TemporaryDirectory()
        let modelURL = directory.file("animals.model.json")
        try Data(Self.model.utf8).write(to: modelURL)
        let server = try ServerProcess(store: directory.file("store.json"), arguments: ["--model", modelURL.path], keeping: directory)
        let client = try server.connect()
        let dog = try client.result("save", ["insert": [["id": "d", "entity": "Dog", "values": ["name": "Rex"]]]])["ids"]["d"].string ?? ""
        #expect(dog.contains("/Dog/"))
        let asAnimal = dog.replacingOccurrences(of: "/Dog/", with: "/Animal/")
        let asCat = dog.replacingOccurrences(of: "/Dog/", with: "/Cat/")

        let got = try client.result("get", ["ids": [asAnimal, asCat]])
        #expect(got["objects"][0]["id"].string == dog, "\(got)")
        #expect(got["objects"][0]["entity"].string == "Dog")
        #expect(got["objects"][1].isNull, "a sibling entity names no object: \(got)")
        #expect(got["missing"].strings == [asCat])

        let saved = try client.result("save", [
            "insert": [["id": "o", "entity": "Owner", "values": ["name": "Ann", "pet": asAnimal]]],
            "update": [["id": asAnimal, "version": 1, "values": ["name": "Rex II"]]],
        ])
        let owner = saved["ids"]["o"].string ?? ""
        #expect(saved["versions"][dog].int == 2, "versions name the object's own entity: \(saved)")
        #expect(try client.result("get", ["ids": [owner]])["objects"][0]["values"]["pet"].string == dog)
        // Values are checked against the entity the ID names: a Dog's own attribute needs a Dog ID.
        let own = try client.call("save", ["update": [["id": asAnimal, "version": 2, "values": ["barks": true]]]])
        #expect(own["error"]["code"].int == -32602, "\(own)")
        // From the cache of wire forms too (the Dog is cached now): a sibling entity's ID is missing.
        #expect(try client.result("get", ["ids": [asCat]])["missing"].strings == [asCat])
        #expect(try client.result("get", ["ids": [asAnimal]])["objects"][0]["values"]["name"].string == "Rex II")
        let wrong = try client.call("save", ["update": [["id": asCat, "version": 2, "values": ["name": "Tom"]]]])
        #expect(wrong["error"]["code"].int == -32001, "a sibling entity's ID is an object that does not exist: \(wrong)")
        #expect(wrong["error"]["data"]["conflicts"][0]["current"].isNull)
        try server.stop()
    }
}
