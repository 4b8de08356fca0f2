import Foundation
import ServerTestSupport
import Testing

/// `docserver check` verifies the model's uniqueness constraints on the loaded store: a store
/// written under a model without the constraint (or by another program) that holds two objects
/// sharing its values is invalid (exit status 1), and the message names both.
@Suite struct CheckUniquenessTests {
    static func model(constrained: Bool) -> String {
        """
        {"entities": [{"name": "Person", \(constrained ? #""uniquenessConstraints": [["email", "team"]],"# : "")
                       "attributes": [{"name": "email", "type": "string"}, {"name": "team", "type": "int64"}]}]}
        """
    }

    @Test func checkRefusesAStoreWhereTwoObjectsShareAConstraintsValuesAndNamesThem() throws {
        let directory = try TemporaryDirectory()
        let plain = directory.file("plain.model.json"), constrained = directory.file("constrained.model.json")
        try Data(Self.model(constrained: false).utf8).write(to: plain)
        try Data(Self.model(constrained: true).utf8).write(to: constrained)
        let server = try ServerProcess(in: directory, arguments: ["--model", plain.path])
        let saved = try server.connect().result("save", ["insert": [
            ["id": "a", "entity": "Person", "values": ["email": "a@example.com", "team": 1]],
            ["id": "b", "entity": "Person", "values": ["email": "a@example.com", "team": 2]],
            ["id": "c", "entity": "Person", "values": ["email": "a@example.com", "team": 1]],
        ]])
        _ = try server.stop()

        let valid = try runDocServer(["check", "--model", plain.path, "--store", server.storeURL.path])
        #expect(valid.status == 0, "\(valid.errors)")
        let result = try runDocServer(["check", "--model", constrained.path, "--store", server.storeURL.path])
        #expect(result.status == 1, "\(result.output) \(result.errors)")
        let first = try #require(saved["ids"]["a"].string), third = try #require(saved["ids"]["c"].string)
        #expect(result.errors.contains("two Person objects share email = \"a@example.com\", team = 1"), "\(result.errors)")
        #expect(result.errors.contains("[email, team]") && result.errors.contains("\(first) and \(third)"), "\(result.errors)")
        #expect(!result.output.contains("ok"), "\(result.output)")
    }
}
