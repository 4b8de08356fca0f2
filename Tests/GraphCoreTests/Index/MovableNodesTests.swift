import Testing
@testable import GraphCore

/// The buffer that hands each node's reference to its index entry without a retain.
@Suite struct MovableNodesTests {
    private static func nodes(_ count: Int) throws -> [CacheNode] {
        let item = try #require(try IndexFixture.model(indexed: false).entity(named: "Item"))
        return (0..<count).map { n in
            CacheNode(objectID: ObjectID(entity: item, store: .interned("movable"), reference: .int(Int64(n))), version: 1, values: [])
        }
    }

    @Test func eachNodeIsTakenOnceAndAPositionTakenTwiceOrOutOfRangeGivesNothing() throws {
        let made = try Self.nodes(3)
        let buffer = MovableNodes(capacity: 1)  // grows
        for node in made { buffer.append(node) }
        #expect(buffer.count == 3)
        #expect(buffer.take(2) === made[2])
        #expect(buffer.take(2) == nil)
        #expect(buffer.take(3) == nil && buffer.take(-1) == nil)
        buffer.append(made[0])  // ignored once taking began
        #expect(buffer.count == 3)
        #expect(buffer.take(0) === made[0])
    }

    @Test func nodesNeverTakenAreReleasedWithTheBufferAndTakenOnesLiveOn() throws {
        weak var untaken: CacheNode?
        weak var kept: CacheNode?
        var taken: CacheNode?
        do {
            let first = MovableNodes(capacity: 2), second = MovableNodes(capacity: 2)
            do {
                let made = try Self.nodes(2)
                untaken = made[0]
                kept = made[1]
                first.append(made[0])
                second.append(made[1])
            }
            first.append(movingFrom: second)
            #expect(first.count == 2 && second.count == 0)
            taken = first.take(1)
        }
        #expect(untaken == nil)
        #expect(kept != nil && taken === kept)
    }
}
