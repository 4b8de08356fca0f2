import Testing
@testable import GraphCore

/// The registry's integer table: dense keys in an array, the rest in a dictionary, and the
/// same answers as a dictionary whatever the order of keys.
@Suite struct IntegerKeyedTableTests {
    @Test func behavesLikeADictionaryForRandomOperations() {
        var table = IntegerKeyedTable<Int>()
        var reference: [Int64: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            // Mostly dense keys, some far away and some negative.
            let key: Int64 = switch step % 10 {
            case 0: Int64.random(in: -1_000_000...1_000_000, using: &generator)
            case 1: Int64.random(in: Int64.min...Int64.max, using: &generator)
            default: Int64.random(in: 0...3_000, using: &generator)
            }
            if step % 7 == 0 {
                #expect(table.removeValue(forKey: key) == reference.removeValue(forKey: key))
            } else {
                table[key] = step
                reference[key] = step
            }
        }
        #expect(table.count == reference.count)
        for (key, value) in reference { #expect(table[key] == value) }
        var seen: [Int] = []
        table.forEach { seen.append($0) }
        #expect(seen.sorted() == reference.values.sorted())
        var backwards: [Int] = []
        table.forEach(backwards: true) { backwards.append($0) }
        #expect(backwards == seen.reversed())
    }

    @Test func aKeyStoredApartMovesIntoTheArrayWhenTheArrayReachesIt() {
        var table = IntegerKeyedTable<String>()
        table[1] = "one"
        table[100] = "hundred"  // too far for a table of one: kept apart
        for key in Int64(2)...99 { table[key] = "k\(key)" }
        #expect(table[100] == "hundred")
        table[100] = "HUNDRED"
        #expect(table[100] == "HUNDRED")
        #expect(table.count == 100)
        var values: [String] = []
        table.forEach { values.append($0) }
        #expect(values.filter { $0 == "HUNDRED" || $0 == "hundred" } == ["HUNDRED"])
    }

    @Test func denseKeysComeBackInIncreasingOrder() {
        var table = IntegerKeyedTable<Int64>()
        table.reserveCapacity(1_000, startingAt: 1)
        for key in Int64(1)...1_000 { table[key] = key }
        var values: [Int64] = []
        table.forEach { values.append($0) }
        #expect(values == Array(1...1_000))
    }
}
