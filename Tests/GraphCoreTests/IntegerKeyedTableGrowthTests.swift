import Testing
@testable import GraphCore

/// A large table that saves keep adding a few keys to grows geometrically: each save's
/// reservation must not copy every slot again.
@Suite struct IntegerKeyedTableGrowthTests {
    @Test func reservingAFewMoreKeysAtATimeReallocatesOnlyLogarithmicallyOften() {
        var table = IntegerKeyedTable<Int>()
        table.reserveCapacity(100_000, startingAt: 1)
        for key in 1...100_000 { table[Int64(key)] = key }
        var capacities: Set<Int> = [table.slots.capacity]
        var next: Int64 = 100_001
        for _ in 0..<200 {
            table.reserveCapacity(100, startingAt: next)
            for _ in 0..<100 {
                table[next] = Int(next)
                next += 1
            }
            capacities.insert(table.slots.capacity)
        }
        #expect(capacities.count <= 3, "the slots were reallocated \(capacities.count - 1) times for 200 saves")
        #expect(table[100_000] == 100_000 && table[next - 1] == Int(next - 1))
    }
}
