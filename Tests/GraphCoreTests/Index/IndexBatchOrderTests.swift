@testable import GraphCore
import ServerTestSupport
import Testing

/// A batch insert into an index tree ends, and holds every entry, even for keys whose order is
/// not consistent: Swift's `<` on strings that are not in NFC (a lone combining mark) can find
/// one key neither before nor after another that it does not equal.
@Suite struct IndexBatchOrderTests {
    private static func randomString(_ rng: inout SplitMix64) -> String {
        let pieces = ["a", "b", "z", "A", "0", "~", " ", "é", "ß", "日本", "😀", "abcdefgh", "e\u{301}", "\u{301}", "\u{338}"]
        let count = Int.random(in: 0...6, using: &rng)
        return (0..<count).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &rng)] }.joined()
    }

    @Test func aBatchOfKeysWithoutAConsistentOrderEndsAndHoldsEveryEntry() {
        var rng = SplitMix64(seed: 4_402)
        for round in 0..<6 {
            var tree = SnapshotIndexTree()
            var reference: Int64 = 0
            func newEntry() -> SnapshotIndexEntry {
                reference += 1
                return SnapshotIndexEntry(key: .string(Self.randomString(&rng)), rest: [], reference: .int(reference))
            }
            for _ in 0..<1_500 { tree.insert(newEntry()) }
            let batch = (0..<600).map { _ in newEntry() }.sorted { SnapshotIndexEntry.order($0, $1) < 0 }
            tree.insert(sorted: batch)
            let walked = SnapshotIndexTreeChangeTests.references(tree)
            #expect(tree.count == 2_100 && walked.count == 2_100 && Set(walked).count == 2_100, "round \(round)")
        }
    }
}
