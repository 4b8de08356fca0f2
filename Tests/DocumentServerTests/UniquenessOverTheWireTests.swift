import Foundation
import ServerTestSupport
import Testing

/// Uniqueness constraints over the wire: a save that would break one is refused with a
/// validation error naming the entity, the attributes and both objects, and it never fails
/// the saves of other clients that arrive at the same moment (it commits alone).
@Suite struct UniquenessOverTheWireTests {
    static let model = """
    {"entities": [{"name": "Person", "uniquenessConstraints": [["email"]],
                   "attributes": [{"name": "email", "type": "string"}, {"name": "name", "type": "string", "optional": true}]}]}
    """

    @Test func aSaveBreakingAConstraintIsRefusedAloneWhileOtherSavesSucceed() throws {
        let directory = try TemporaryDirectory()
        let modelURL = directory.file("model.json")
        try Data(Self.model.utf8).write(to: modelURL)
        let server = try ServerProcess(in: directory, arguments: ["--model", modelURL.path])
        let first = try server.connect().result("save", ["insert": [["id": "a", "entity": "Person", "values": ["email": "a@example.com"]]]])
        let existing = try #require(first["ids"]["a"].string)

        // Ten clients send at the same moment: one repeats the e-mail, nine insert new ones.
        let clients = try (0..<10).map { _ in try server.connect() }
        for (index, client) in clients.enumerated() {
            let email = index == 4 ? "a@example.com" : "p\(index)@example.com"
            try client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"save","params":{"insert":[{"id":"p","entity":"Person","values":{"email":"\#(email)"}}]}}"#)
        }
        for (index, client) in clients.enumerated() {
            let answer = try client.readLine(timeout: 20)
            if index == 4 {
                #expect(answer.contains("-32002"), "\(answer)")
                #expect(answer.contains("email") && answer.contains("Person") && answer.contains(existing), "\(answer)")
            } else {
                #expect(answer.contains("\"result\""), "client \(index): \(answer)")
            }
        }
        let count = try server.connect().result("fetch", ["entity": "Person", "resultType": "count"])
        #expect(count["count"].int == 10)
    }
    @Test func aUniquenessFailureNamesTheSavesInsertsByTheirTemporaryIDsAndExistingObjectsByTheirIDs() throws {
        let directory = try TemporaryDirectory()
        let modelURL = directory.file("model.json")
        try Data(Self.model.utf8).write(to: modelURL)
        let server = try ServerProcess(in: directory, arguments: ["--model", modelURL.path])
        let client = try server.connect()
        let existing = try #require(try client.result("save", ["insert": [["id": "a", "entity": "Person", "values": ["email": "a@example.com"]]]])["ids"]["a"].string)
        let known = Set([existing])

        // An insert repeating an existing object's e-mail.
        let answer = try client.call("save", ["insert": [["id": "new-1", "entity": "Person", "values": ["email": "a@example.com"]]]])
        let failure = answer["error"]["data"]["failures"][0]
        #expect(answer["error"]["code"].int == -32002, "\(answer)")
        #expect(failure["id"].string == "new-1", "\(answer)")
        let reason = failure["reason"].string ?? ""
        #expect(reason.contains("new-1") && reason.contains(existing), "\(reason)")
        #expect(Self.objectIDs(in: reason).isSubset(of: known), "only IDs the client was given: \(reason)")

        // Two inserts of one save sharing an e-mail: both by temporary ID.
        let both = try client.call("save", ["insert": [["id": "x", "entity": "Person", "values": ["email": "b@example.com"]],
                                                       ["id": "y", "entity": "Person", "values": ["email": "b@example.com"]]]])
        let pair = both["error"]["data"]["failures"][0]
        #expect(["x", "y"].contains(pair["id"].string ?? ""), "\(both)")
        let pairReason = pair["reason"].string ?? ""
        #expect(pairReason.contains("x and y") || pairReason.contains("y and x"), "\(pairReason)")
        #expect(Self.objectIDs(in: pairReason).isEmpty, "\(pairReason)")
        #expect(try client.result("fetch", ["entity": "Person", "resultType": "count"])["count"].int == 1)
        try server.stop()
    }

    /// The `graph://…` IDs in `text`.
    static func objectIDs(in text: String) -> Set<String> {
        var ids = Set<String>()
        var rest = Substring(text)
        while let start = rest.range(of: "graph://") {
            let id = rest[start.lowerBound...].prefix { !$0.isWhitespace && $0 != ";" && $0 != "," }
            ids.insert(String(id))
            rest = rest[id.endIndex...]
        }
        return ids
    }
}
