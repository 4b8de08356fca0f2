import Foundation
import ServerTestSupport
import Testing
@testable import GraphCore

/// Integers and doubles compared, summed and averaged at the edges of their ranges: exact
/// answers, never a trap (2^63 as a double used to crash every fetch that met it).
@Suite struct NumericBoundaryTests {
    static let twoTo63 = 9_223_372_036_854_775_808.0

    /// Doubles at the edges: ±2^63 (and the doubles next to them), ±2^63 ± 1 (which round to
    /// ±2^63), ±(2^53 ± 1), the Int64 bounds as doubles, NaN, ±∞, ±0, and a few fractions.
    static let doubles: [Double] = [
        twoTo63, -twoTo63, twoTo63.nextUp, twoTo63.nextDown, (-twoTo63).nextUp, (-twoTo63).nextDown,
        twoTo63 + 1, -twoTo63 - 1, Double(Int64.max), Double(Int64.min),
        0x1p53, (0x1p53 as Double).nextUp, 0x1p53 - 1, -0x1p53 - 2, -(0x1p53 as Double).nextDown,
        .nan, .infinity, -.infinity, 0, -0.0, 0.5, -0.5, 1, -1, 2.5, 1e300, -1e300,
    ]

    static let integers: [Int64] = [
        .max, .min, .max - 1, .min + 1, 0, 1, -1, 2, 9_007_199_254_740_992, 9_007_199_254_740_993,
        -9_007_199_254_740_993, 9_223_372_036_854_774_784, -9_223_372_036_854_774_784,
    ]

    // MARK: - The examples of the issue

    @Test func anInt64ComparedWithTwoTo63AsADoubleIsSmallerInEveryOperator() throws {
        let (container, _) = try Self.songs(plays: [Int64.max, 0, Int64.min], ratings: [])
        let context = container.newContext()
        func titles(_ format: String, _ arguments: [PredicateValue]) throws -> [String] {
            let request = FetchRequest(entityName: "Song", predicate: try Predicate(format: format, arguments: arguments))
            return try context.fetch(request).map { try $0.get("title") as String }.sorted()
        }
        let big: [PredicateValue] = [.value(.double(Self.twoTo63))]
        #expect(try titles("plays == %@", big) == [])
        #expect(try titles("plays == 9223372036854775808", []) == [])
        #expect(try titles("plays == %f", big) == [])
        #expect(try titles("plays < %@", big) == ["p0", "p1", "p2"])
        #expect(try titles("plays >= 9223372036854775808", []) == [])
        // -9223372036854775809 rounds to -2^63 as a double, which equals Int64.min.
        #expect(try titles("plays > -9223372036854775809", []) == ["p0", "p1"])
        #expect(try titles("plays >= -9223372036854775809", []) == ["p0", "p1", "p2"])
        #expect(try titles("plays IN {9223372036854775808, 1}", []) == [])
        #expect(try titles("plays BETWEEN {0, 9223372036854775808}", []) == ["p0", "p1"])
        #expect(try titles("plays BETWEEN %@", [.array([.value(.int(0)), .value(.double(Self.twoTo63))])]) == ["p0", "p1"])
    }

    @Test func aCountComparedWithTwoTo63AsADoubleDoesNotTrap() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let song = try context.insert("Song", values: ["title": "So What"])
        try song.setObject(album, forKey: "album")
        try context.save()
        let fresh = container.newContext()
        let below = try Predicate(format: "songs.@count < %@", arguments: [.value(.double(Self.twoTo63))])
        #expect(try fresh.fetch(FetchRequest(entityName: "Album", predicate: below)).count == 1)
        let equal = try Predicate(format: "songs.@count == 9223372036854775808")
        #expect(try fresh.fetch(FetchRequest(entityName: "Album", predicate: equal)).isEmpty)
    }

    @Test func aDoubleOf2To63SavedThenComparedWithIntegersAnswersEveryFetch() throws {
        let (container, _) = try Self.songs(plays: [], ratings: [Self.twoTo63, -Self.twoTo63, 1.5])
        let context = container.newContext()
        func titles(_ format: String) throws -> [String] {
            try context.fetch(FetchRequest(entityName: "Song", predicate: try Predicate(format: format)))
                .map { try $0.get("title") as String }.sorted()
        }
        #expect(try titles("rating > 9223372036854775807") == ["r0"])
        #expect(try titles("rating == 9223372036854775807") == [])
        #expect(try titles("rating < -9223372036854775807") == ["r1"])
        #expect(try titles("rating == -9223372036854775808") == ["r1"])
        #expect(try titles("rating IN {9223372036854775807, 1}") == [])
        #expect(try titles("rating BETWEEN {1, 9223372036854775807}") == ["r2"])
    }

    @Test func aSumOfIntegersIsExactPast64Bits() throws {
        let (container, album) = try Self.songs(plays: [Int64.max, Int64.max, -Int64.max], ratings: [])
        let context = container.newContext()
        func matches(_ format: String) throws -> Bool {
            let request = FetchRequest(entityName: "Album", predicate: try Predicate(format: format))
            return try context.fetch(request).map(\.objectID) == [album]
        }
        // The running sum passes Int64.max; the result is exactly Int64.max.
        #expect(try matches("songs.@sum.plays == 9223372036854775807"))
        #expect(try matches("songs.@avg.plays > 3074457345618258000 AND songs.@avg.plays < 3074457345618259000"))
    }

    @Test func aSumOfIntegersEqualTo2To63IsADoubleThatComparesExactly() throws {
        let (container, album) = try Self.songs(plays: [Int64.max, 1], ratings: [])
        let context = container.newContext()
        func matches(_ format: String) throws -> Bool {
            try context.fetch(FetchRequest(entityName: "Album", predicate: try Predicate(format: format))).map(\.objectID) == [album]
        }
        #expect(try matches("songs.@sum.plays > 9223372036854775807"))
        #expect(try matches("songs.@sum.plays == 9223372036854775808"))
        #expect(try matches("songs.@avg.plays == 4611686018427387904"))
    }

    @Test func aSumOverInfiniteDoublesIsInfiniteNotATrap() throws {
        let (container, album) = try Self.songs(plays: [], ratings: [.infinity, 1])
        let context = container.newContext()
        let request = FetchRequest(entityName: "Album", predicate: try Predicate(format: "songs.@sum.rating > 1e308"))
        #expect(try context.fetch(request).map(\.objectID) == [album])
        // A decimal beside an infinite double: the decimal sum is NaN (Decimal has no infinity).
        var sum = Aggregation(.sum)
        sum.add(.decimal(1.5))
        sum.add(.double(-.infinity))
        guard case .decimal(let decimal) = sum.result else {
            Issue.record("the sum is \(sum.result)")
            return
        }
        #expect(decimal.isNaN)
    }

    // MARK: - Properties over the boundaries

    /// Every comparison operator, int64 and double attributes against int and double constants
    /// drawn from the boundary values, checked against an exact reference computed with Int128.
    @Test func comparisonsOfBoundaryNumbersAreExact() throws {
        let (container, _) = try Self.songs(plays: Self.integers, ratings: Self.doubles)
        let context = container.newContext()
        let constants: [Value] = Self.integers.map(Value.int) + Self.doubles.map(Value.double)
        var random = SplitMix64(seed: 0x5EED_2026)
        let operators = ["==", "!=", "<", "<=", ">", ">="]
        for attribute in ["plays", "rating"] {
            let stored: [(title: String, value: Value)] = attribute == "plays"
                ? Self.integers.enumerated().map { ("p\($0.offset)", .int($0.element)) }
                : Self.doubles.enumerated().map { ("r\($0.offset)", .double($0.element)) }
            for constant in constants {
                for op in operators {
                    let predicate = try Predicate(format: "\(attribute) \(op) %@", arguments: [.value(constant)])
                    let expected = stored.filter { Self.holds($0.value, op, constant) }.map(\.title).sorted()
                    #expect(try Self.titles(context, predicate, prefix: attribute == "plays" ? "p" : "r") == expected,
                            "\(attribute) \(op) \(constant)")
                }
                // IN and BETWEEN with a second constant drawn at random.
                let other = constants[Int(random.next() % UInt64(constants.count))]
                let inList = try Predicate(format: "\(attribute) IN %@", arguments: [.array([.value(constant), .value(other)])])
                let inExpected = stored.filter { Self.holds($0.value, "==", constant) || Self.holds($0.value, "==", other) }
                #expect(try Self.titles(context, inList, prefix: attribute == "plays" ? "p" : "r") == inExpected.map(\.title).sorted(),
                        "\(attribute) IN {\(constant), \(other)}")
                let between = try Predicate(format: "\(attribute) BETWEEN %@", arguments: [.array([.value(constant), .value(other)])])
                let betweenExpected = stored.filter { Self.holds($0.value, ">=", constant) && Self.holds($0.value, "<=", other) }
                #expect(try Self.titles(context, between, prefix: attribute == "plays" ? "p" : "r") == betweenExpected.map(\.title).sorted(),
                        "\(attribute) BETWEEN {\(constant), \(other)}")
            }
        }
    }

    /// Integers compared with doubles directly, in both orders, against the Int128 reference.
    @Test func mixedOrderAgreesWithTheExactReferenceOnRandomNeighbours() {
        var random = SplitMix64(seed: 42)
        var doubles = Self.doubles
        var integers = Self.integers
        for _ in 0..<400 {
            let base = Self.doubles[Int(random.next() % UInt64(Self.doubles.count))]
            doubles.append(random.next() % 2 == 0 ? base.nextUp : base.nextDown)
            integers.append(Int64(bitPattern: random.next()) >> Int64(random.next() % 64))
        }
        var wrong: [String] = []
        for i in integers {
            for d in doubles {
                let expected = Self.exactOrder(i, d)
                if ValueComparison.order(.int(i), .double(d)) != expected
                    || ValueComparison.order(.double(d), .int(i)) != expected.map(Self.flip)
                    || ValueComparison.equal(.int(i), .double(d)) != (expected == .orderedSame) {
                    wrong.append("\(i) vs \(d)")
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) pairs compare wrongly, first \(wrong.prefix(5))")
    }

    @Test func sumsAndAveragesOfRandomIntegersAreExact() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<300 {
            let count = Int(random.next() % 6) + 1
            let values = (0..<count).map { _ in Self.integers[Int(random.next() % UInt64(Self.integers.count))] }
            var sum = Aggregation(.sum), average = Aggregation(.average)
            for v in values { sum.add(.int(v)); average.add(.int(v)) }
            let exact = values.reduce(Int128(0)) { $0 + Int128($1) }
            if let fits = Int64(exactly: exact) {
                #expect(sum.result == .int(fits), "sum of \(values)")
            } else {
                #expect(sum.result == .double(Double(exact)), "sum of \(values)")
            }
            guard case .double(let mean) = average.result else {
                Issue.record("average of \(values) is \(average.result)")
                continue
            }
            // Within one rounding of the exact quotient: |mean * count - exact| small.
            let exactMean = Double(exact) / Double(count)
            #expect(abs(mean - exactMean) <= max(abs(exactMean).ulp * 2, 1), "average of \(values): \(mean)")
        }
    }

    // MARK: - The reference

    /// The order of an integer and a double by exact arithmetic: the double's integer part
    /// as an Int128 (every finite double below 2^127 has one), then its fraction.
    static func exactOrder(_ i: Int64, _ d: Double) -> ComparisonResult? {
        if d.isNaN { return nil }
        if d == .infinity { return .orderedAscending }
        if d == -.infinity { return .orderedDescending }
        if d >= 0x1p126 { return .orderedAscending }
        if d <= -0x1p126 { return .orderedDescending }
        let floor = d.rounded(.down)
        guard let whole = Int128(exactly: floor) else { return nil }
        let a = Int128(i)
        if a < whole { return .orderedAscending }
        if a > whole { return .orderedDescending }
        return floor == d ? .orderedSame : .orderedAscending
    }

    static func order(_ a: Value, _ b: Value) -> ComparisonResult? {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        case (.int(let x), .double(let y)): return exactOrder(x, y)
        case (.double(let x), .int(let y)): return exactOrder(y, x).map(flip)
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return nil }
            return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        default: return nil
        }
    }

    static func holds(_ value: Value, _ op: String, _ constant: Value) -> Bool {
        let order = order(value, constant)
        switch op {
        case "==": return order == .orderedSame
        case "!=": return order != .orderedSame
        case "<": return order == .orderedAscending
        case "<=": return order == .orderedAscending || order == .orderedSame
        case ">": return order == .orderedDescending
        default: return order == .orderedDescending || order == .orderedSame
        }
    }

    static func flip(_ r: ComparisonResult) -> ComparisonResult {
        r == .orderedAscending ? .orderedDescending : r == .orderedDescending ? .orderedAscending : .orderedSame
    }

    // MARK: - Data

    /// A container with one album holding songs "p0"… (plays set, rating nil) and "r0"…
    /// (rating set, plays 0).
    static func songs(plays: [Int64], ratings: [Double]) throws -> (PersistentContainer, ObjectID) {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Boundaries"])
        for (index, value) in plays.enumerated() {
            let song = try context.insert("Song", values: ["title": .string("p\(index)"), "plays": .int(value)])
            try song.setObject(album, forKey: "album")
        }
        for (index, value) in ratings.enumerated() {
            let song = try context.insert("Song", values: ["title": .string("r\(index)"), "rating": .double(value)])
            try song.setObject(album, forKey: "album")
        }
        try context.save()
        return (container, album.objectID)
    }

    static func titles(_ context: ObjectContext, _ predicate: GraphCore.Predicate, prefix: String) throws -> [String] {
        try context.fetch(FetchRequest(entityName: "Song", predicate: predicate))
            .map { try $0.get("title") as String }.filter { $0.hasPrefix(prefix) }.sorted()
    }
}
