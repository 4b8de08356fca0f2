import Foundation
import ServerTestSupport
import Testing

/// `get` with `versions`: objects the client holds at their current version come back
/// without values, so a client re-reading what did not change transfers almost nothing.
@Suite struct GetVersionsTests {
    @Test func anObjectAtTheVersionTheClientHoldsComesWithoutValues() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let data = try SampleData.insert(through: client)
        _ = try client.result("save", ["update": [["id": data["s2"], "version": 1, "values": ["plays": 99]]]])

        // s1 unchanged (held at 1), s2 changed (held at 1, now 2), s3 not held, b1 held at a version it never had.
        let ids = [data["s1"], data["s2"], data["s3"], data["b1"]]
        let result = try client.result("get", ["ids": ids, "versions": [1, 1, NSNull(), 7]])
        let objects = result["objects"]
        #expect(objects[0] == JSON(["id": data["s1"], "entity": "Song", "version": 1]))
        #expect(objects[1]["version"].int == 2)
        #expect(objects[1]["values"]["plays"].int == 99)
        #expect(objects[2]["values"]["title"].string != nil)
        #expect(objects[3]["values"]["title"].string != nil)
        #expect(result["missing"].strings == [])

        // The same again, now answered from the server's cache of wire forms.
        let cached = try client.result("get", ["ids": ids, "versions": [1, 2, NSNull(), 7]])
        #expect(cached["objects"][0].keys == ["entity", "id", "version"])
        #expect(cached["objects"][1].keys == ["entity", "id", "version"])
        #expect(cached["objects"][2].keys == ["entity", "id", "values", "version"])
        try server.stop()
    }

    @Test func versionsMustMatchTheIDsOneForOne() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let data = try SampleData.insert(through: client)
        let short = try client.call("get", ["ids": [data["s1"], data["s2"]], "versions": [1]])["error"]
        #expect(short["code"].int == -32602)
        #expect(short["data"]["path"].string == "params.versions")
        let wrong = try client.call("get", ["ids": [data["s1"]], "versions": ["1"]])["error"]
        #expect(wrong["data"]["path"].string == "params.versions[0]")
        #expect(wrong["message"].string?.contains("an integer") == true)
        try server.stop()
    }
}
