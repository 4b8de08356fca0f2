@testable import DocumentServer
import Foundation
import GraphCore
import Testing

/// The parts of a bounded cache the writer keeps (``RecentChanges``, ``ObjectBudget``), alone:
/// whether what a reader read may be kept, and which objects go first.
@Suite("Bounded cache")
struct BoundedCacheUnitTests {
    private static let sampleModel = SampleModelFile.model

    private static func tag(_ number: Int) throws -> ObjectID {
        try ObjectID(uri: "graph://S/Tag/\(number)", model: sampleModel.get())
    }

    private static func snapshot(_ number: Int, label: String = "x") throws -> ObjectSnapshot {
        ObjectSnapshot(objectID: try tag(number), version: 1, values: [.string(label), .objects([])])
    }

    @Test func aReadIsKeptOnlyWhenNoCommitTheWriterAppliedAfterItChangedTheObject() throws {
        var recent = RecentChanges(window: 100, latest: 10)
        recent.note(11, changed: [try Self.tag(1)])
        recent.note(12, changed: [try Self.tag(2)])
        // Read by a reader of state 10: object 1 changed in 11 since, object 3 did not.
        #expect(!recent.isCurrent(try Self.tag(1), readAt: 10))
        #expect(recent.isCurrent(try Self.tag(3), readAt: 10))
        // Read at 11: it holds commit 11; object 2 changed in 12, after it.
        #expect(recent.isCurrent(try Self.tag(1), readAt: 11))
        #expect(!recent.isCurrent(try Self.tag(2), readAt: 11))
        #expect(recent.isCurrent(try Self.tag(2), readAt: 12))
    }

    @Test func aReadOlderThanTheRememberedCommitsIsNeverKept() throws {
        var recent = RecentChanges(window: 4, latest: 0)
        for sequence in 1...20 { recent.note(Int64(sequence), changed: [try Self.tag(sequence)]) }
        // Commits 1...16 are forgotten: a read from state 15 cannot be told current.
        #expect(!recent.isCurrent(try Self.tag(100), readAt: 15))
        #expect(recent.isCurrent(try Self.tag(100), readAt: 17))
        #expect(!recent.isCurrent(try Self.tag(18), readAt: 17))
    }

    @Test func anObjectIsKeptByAFullCacheAtItsSecondMissWhileTheFirstIsRemembered() throws {
        var filter = AdmissionFilter(budgetBytes: 0)
        #expect(filter.capacity == 1024)
        #expect(!filter.missedBefore(try Self.tag(1)))
        #expect(filter.missedBefore(try Self.tag(1)))
        #expect(!filter.missedBefore(try Self.tag(2)))
        // 1,024 other misses later the first ones are forgotten: they count as first misses again.
        for number in 1_000..<2_024 { #expect(!filter.missedBefore(try Self.tag(number))) }
        #expect(!filter.missedBefore(try Self.tag(1)))
        #expect(!filter.missedBefore(try Self.tag(2)))
        #expect(filter.missedBefore(try Self.tag(2_023)), "the newest miss was forgotten")
        #expect(AdmissionFilter(budgetBytes: 64 << 20).capacity == 131_072)
    }

    @Test func theBudgetLetsTheOldestObjectsGoFirstAndCountsEachOnce() throws {
        let one = ObjectBudget.estimatedBytes(of: try Self.snapshot(1))
        var budget = ObjectBudget(limit: 3 * one)
        for number in 1...3 { budget.hold(try Self.snapshot(number)) }
        #expect(budget.overflow().isEmpty)
        budget.hold(try Self.snapshot(2))  // a new version of one held: no new place in line
        #expect(budget.overflow().isEmpty && budget.count == 3)
        budget.hold(try Self.snapshot(4))
        #expect(budget.overflow() == [try Self.tag(1)])
        budget.release(try Self.tag(2))  // deleted
        budget.hold(try Self.snapshot(5))
        #expect(budget.overflow().isEmpty, "a deleted object's bytes were counted still")
        budget.hold(try Self.snapshot(6))
        #expect(budget.overflow() == [try Self.tag(3)])
        #expect(budget.bytes <= budget.limit)
    }

    @Test func anObjectAskedForSinceItCameInGetsASecondTurnOnce() throws {
        let one = ObjectBudget.estimatedBytes(of: try Self.snapshot(1))
        var budget = ObjectBudget(limit: 3 * one)
        for number in 1...3 { budget.hold(try Self.snapshot(number)) }
        budget.reference(try Self.tag(1))  // a reader found 1: it stays, 2 goes in its place
        budget.hold(try Self.snapshot(4))
        #expect(budget.overflow() == [try Self.tag(2)])
        budget.hold(try Self.snapshot(5))
        #expect(budget.overflow() == [try Self.tag(3)])
        budget.hold(try Self.snapshot(6))
        #expect(budget.overflow() == [try Self.tag(4)])
        // 1's second turn began when 2 left: not asked for again, it goes now.
        budget.hold(try Self.snapshot(7))
        #expect(budget.overflow() == [try Self.tag(1)])
        // Every object held asked for: each gets a turn again, and the newcomer goes first.
        for number in 5...7 { budget.reference(try Self.tag(number)) }
        budget.hold(try Self.snapshot(8))
        #expect(budget.overflow() == [try Self.tag(8)])
        // Their second turns used, the oldest goes next.
        budget.hold(try Self.snapshot(9))
        #expect(budget.overflow() == [try Self.tag(5)])
        budget.reference(try Self.tag(100))  // not held: nothing to keep
        #expect(budget.count == 3 && budget.bytes <= budget.limit)
    }

    @Test func hitsReachTheWriterInBatchesAndStopWhileItIsBehind() throws {
        final class Delivered: @unchecked Sendable { var batches: [[ObjectID]] = [] }
        let delivered = Delivered()
        let hits = CacheHits { delivered.batches.append($0) }
        let id = try Self.tag(1)
        for _ in 0..<(CacheHits.batch - 1) { hits.note(id) }
        #expect(delivered.batches.isEmpty)
        hits.note(id)
        #expect(delivered.batches.map(\.count) == [CacheHits.batch])
        // The writer takes none: past the limit, hits are not noted (no memory grows).
        for _ in 0..<(2 * CacheHits.pendingLimit) { hits.note(id) }
        #expect(delivered.batches.count == CacheHits.pendingLimit / CacheHits.batch)
        hits.taken(CacheHits.pendingLimit)
        for _ in 0..<CacheHits.batch { hits.note(id) }
        #expect(delivered.batches.count == CacheHits.pendingLimit / CacheHits.batch + 1)
    }

    @Test func aLongerValueCostsMore() throws {
        let short = ObjectBudget.estimatedBytes(of: try Self.snapshot(1, label: "x"))
        let long = ObjectBudget.estimatedBytes(of: try Self.snapshot(1, label: String(repeating: "y", count: 1000)))
        #expect(long >= short + 1000)
    }
}
