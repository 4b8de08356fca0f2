import Foundation
import ServerTestSupport
import Testing

/// A save that changes nothing is no commit (`docs/PROTOCOL.md`, hello): it has no number of
/// its own, no `changes` record and no notification, whether it is written alone or in one
/// group commit with other clients' saves.
@Suite struct NoChangeSaveTests {
    @Test func aSaveThatChangesNothingAloneIsAnsweredWithTheLatestCommitAndMakesNone() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let inserted = try client.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "same"]]]])
        let tag = try #require(inserted["ids"]["t"].string)
        let latest = try #require(inserted["seq"].int)
        for params: [String: Any] in [[:], ["update": [["id": tag, "version": 1, "values": [String: Any]()]]],
                                      ["update": [["id": tag, "version": 1, "values": ["label": "same"]]]]] {
            let answer = try client.result("save", params)
            #expect(answer["seq"].int == latest, "\(params): \(answer)")
            #expect(answer["versions"][tag].int ?? 1 == 1, "\(answer)")
        }
        #expect(try client.result("hello")["seq"].int == latest)
        #expect(try client.result("changes", ["since": latest])["changes"].count == 0)
        try server.stop()
    }

    @Test func aSaveThatChangesNothingInAGroupCommitGetsNoNumberNorRecord() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let setup = try server.connect()
        let inserted = try setup.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "same"]]]])
        let tag = try #require(inserted["ids"]["t"].string)
        var latest = try #require(inserted["seq"].int)
        let clients = try (0..<16).map { _ in try server.connect() }
        for round in 0..<4 {
            // Half the clients change something, half change nothing, all at the same moment:
            // the writer takes them in a few turns, each one group commit.
            for (index, client) in clients.enumerated() {
                let params = index % 2 == 0
                    ? #"{"insert":[{"id":"n","entity":"Tag","values":{"label":"r\#(round)c\#(index)"}}]}"#
                    : #"{"update":[{"id":"\#(tag)","version":1,"values":{"label":"same"}}]}"#
                try client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"save","params":\#(params)}"#)
            }
            var numbers: [Int] = []
            for (index, client) in clients.enumerated() {
                let answer = try JSON(parsing: try client.readLine(timeout: 20))
                let seq = try #require(answer["result"]["seq"].int, "\(answer)")
                #expect(seq > latest || index % 2 == 1, "\(answer)")
                if index % 2 == 0 { numbers.append(seq) }
            }
            #expect(Set(numbers).count == numbers.count, "each save that changed something has its own number: \(numbers)")
            let changes = try setup.result("changes", ["since": latest])
            #expect(changes["changes"].count == numbers.count, "one record per save that changed something: \(changes)")
            latest += numbers.count
            #expect(try setup.result("hello")["seq"].int == latest, "round \(round)")
        }
        try server.stop()
    }
}
