import Foundation
import ServerTestSupport
import Testing

/// The notifications of a group commit (saves of several connections written together) go to
/// each connection in one write: each subscription still gets each commit once, in order.
@Suite struct GroupNotificationTests {
    @Test func savesCommittedTogetherReachEverySubscriptionOnceInOrder() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        // One connection with two subscriptions (everything, and a live query), another with an
        // equal live query without values, and ten connections saving at once.
        let watcher = try server.connect(), other = try server.connect()
        #expect(try watcher.result("subscribe", [:])["subscription"].int == 1)
        #expect(try watcher.result("subscribe", ["entity": "Tag", "predicate": "label BEGINSWITH 'even'"])["subscription"].int == 2)
        #expect(try other.result("subscribe", ["entity": "Tag", "predicate": "label BEGINSWITH 'even'", "includeValues": false])["subscription"].int == 1)
        let writers = try (0..<10).map { _ in try server.connect() }
        var seqs: [Int] = []
        var evens: [Int] = []
        for round in 0..<20 {
            // Every writer's line is sent before any answer is read: the writer thread takes them together.
            for (index, writer) in writers.enumerated() {
                let label = (index % 2 == 0 ? "even" : "odd") + " \(round) \(index)"
                try writer.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"\#(label)"}}]}}"#)
            }
            for (index, writer) in writers.enumerated() {
                let seq = try #require(try JSON(parsing: writer.readLine())["result"]["seq"].int)
                seqs.append(seq)
                if index % 2 == 0 { evens.append(seq) }
            }
        }
        seqs.sort()
        evens.sort()
        let notes = try watcher.notifications(seqs.count + evens.count)
        func numbers(of subscription: Int, in notes: [JSON]) -> [Int] {
            notes.filter { $0["params"]["subscription"].int == subscription }.compactMap { $0["params"]["seq"].int }
        }
        #expect(numbers(of: 1, in: notes) == seqs, "everything: each commit once, in order")
        #expect(numbers(of: 2, in: notes) == evens, "the live query: each commit it matches once, in order")
        #expect(notes.allSatisfy { $0["params"]["inserted"][0]["values"]["label"].string != nil })
        let otherNotes = try other.notifications(evens.count)
        #expect(numbers(of: 1, in: otherNotes) == evens)
        #expect(otherNotes.allSatisfy { $0["params"]["inserted"][0]["values"].isMissing && $0["params"]["removed"].array?.isEmpty == true })
        #expect(try watcher.staysSilent(for: 0.3))
        #expect(try other.staysSilent(for: 0.3))
        try server.stop()
    }
}
