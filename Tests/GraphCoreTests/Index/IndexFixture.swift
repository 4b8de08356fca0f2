import Foundation
@testable import GraphCore
import ServerTestSupport

/// A model of items with attributes of every kind an index covers, made with or without
/// fetch indexes, and random items and requests over it.
enum IndexFixture {
    /// Indexed keys: `i` (int64), `d` (double, descending), `s` (string; also folded `[cd]`),
    /// `t` (date), `b` (bool), `c` (int32, first element of a compound index with `w`); `w` has
    /// a case-folded index only (`[c]`); `g` is a to-one relationship to a `Group` (indexed
    /// alone and first in a compound index with `i`; its inverse `items` nullifies it when the
    /// group is deleted); `u` is not indexed; `n` numbers the items.
    static func model(indexed: Bool) throws -> ObjectModel {
        let indexes: [FetchIndexDescription] = indexed ? [
            FetchIndexDescription(name: "byI", elements: [.init(.property("i"))]),
            FetchIndexDescription(name: "byD", elements: [.init(.property("d"), ascending: false)]),
            FetchIndexDescription(name: "byS", elements: [.init(.property("s"))]),
            FetchIndexDescription(name: "byT", elements: [.init(.property("t"))]),
            FetchIndexDescription(name: "byB", elements: [.init(.property("b"))]),
            FetchIndexDescription(name: "byCW", elements: [.init(.property("c")), .init(.property("w"))]),
            FetchIndexDescription(name: "byWFolded", elements: [.init(.property("w"), caseInsensitive: true)]),
            FetchIndexDescription(name: "bySFolded", elements: [.init(.property("s"), caseInsensitive: true, diacriticInsensitive: true)]),
            FetchIndexDescription(name: "byG", elements: [.init(.property("g"))]),
            FetchIndexDescription(name: "byGI", elements: [.init(.property("g")), .init(.property("i"), ascending: false)]),
        ] : []
        return try ObjectModel(entities: [
            EntityDescription("Item", attributes: [
                AttributeDescription("n", .int64),
                AttributeDescription("i", .int64, isOptional: true),
                AttributeDescription("d", .double, isOptional: true),
                AttributeDescription("s", .string, isOptional: true),
                AttributeDescription("t", .date, isOptional: true),
                AttributeDescription("b", .bool, isOptional: true),
                AttributeDescription("c", .int32, isOptional: true),
                AttributeDescription("u", .int64, isOptional: true),
                AttributeDescription("w", .string, isOptional: true),
            ], relationships: [
                RelationshipDescription("g", destination: "Group", inverse: "items"),
            ], fetchIndexes: indexes),
            EntityDescription("Group", attributes: [AttributeDescription("k", .int64)], relationships: [
                RelationshipDescription("items", destination: "Item", inverse: "g", toMany: true, deleteRule: .nullify),
            ]),
        ])
    }

    /// How many groups the items are spread over.
    static let groupCount = 5

    /// Inserts the groups and the items of `rows` (whose `g` is a group's number or nil) into
    /// `context`, saved: the groups' IDs, by number.
    static func insert(_ rows: [[String: Value]], into context: ObjectContext) throws -> [ObjectID] {
        let groups = try (0..<groupCount).map { k in try context.insert("Group", values: ["k": .int(Int64(k))]) }
        for row in rows {
            var values = row
            values["g"] = nil
            let item = try context.insert("Item", values: values)
            if case .int(let k) = row["g"] ?? .null { try item.setObject(groups[Int(k)], forKey: "g") }
        }
        try context.save()
        return groups.map(\.objectID)
    }

    /// The variables `$G0`, `$G1`, … of a predicate, bound to the groups' IDs.
    static func groupVariables(_ groups: [ObjectID]) -> [String: PredicateValue] {
        var values: [String: PredicateValue] = [:]
        for (k, id) in groups.enumerated() { values["G\(k)"] = .value(.object(id)) }
        return values
    }

    /// `request` with its group variables bound to `groups`.
    static func bound(_ request: FetchRequest, _ groups: [ObjectID]) -> FetchRequest {
        var bound = request
        bound.predicate = request.predicate?.withSubstitutionVariables(groupVariables(groups))
        return bound
    }

    static let integers: [Value] = [.null, .int(.min), .int(.max), .int(0), .int(-1), .int(1), .int(2), .int(3),
                                    .int(9_007_199_254_740_992), .int(9_007_199_254_740_993), .int(-5)]
    static let doubles: [Value] = [.null, .double(.nan), .double(0), .double(-0.0), .double(1), .double(0.5), .double(-1.5),
                                   .double(9_223_372_036_854_775_808.0), .double(-9_223_372_036_854_775_808.0),
                                   .double(9_007_199_254_740_992), .double(.infinity), .double(-.infinity), .double(2), .double(3)]
    static let strings: [Value] = [.null, "", "a", "ab", "abc", "B", "\u{E9}", "e\u{301}", "e", "ef", "\u{E9}t\u{E9}",
                                   "日本", "日本語", "\u{1F600}", "Zed", "a\r\nb", "ß", "SS", "A", "AB", "aBc", "\u{C9}", "E\u{301}T\u{C9}", "ss", "ZED"]
    static let dates: [Value] = [.null] + [0, 1, 1_000, -86_400, 1e9].map { .date(Date(timeIntervalSince1970: $0)) }
    static let bools: [Value] = [.null, .bool(true), .bool(false)]

    /// Values a key may hold.
    static func pool(_ key: String) -> [Value] {
        switch key {
        case "i", "u", "c": integers
        case "d": doubles
        case "s", "w": strings
        case "t": dates
        case "g": [.null] + (0..<groupCount).map { .int(Int64($0)) }
        default: bools
        }
    }

    /// Constants a predicate may compare a key with: its own kind mostly, sometimes another number kind.
    static func constants(_ key: String) -> [Value] {
        switch key {
        case "i", "u", "c": integers + [.double(1), .double(2.5), .double(-0.0), .double(9_223_372_036_854_775_808.0), .bool(true)]
        case "d": doubles + [.int(1), .int(.max), .int(0), .int(9_007_199_254_740_993)]
        case "b": bools + [.int(1), .int(0), .double(1)]
        default: pool(key)
        }
    }

    static let keys = ["i", "d", "s", "t", "b", "c", "u", "w", "g"]
    /// The keys a fetch may sort by (not the relationship).
    static let sortKeys = ["i", "d", "s", "t", "b", "c", "u", "w"]

    /// A random comparison of the relationship `g` with a group (a variable `$Gk`) or nil.
    static func groupComparison(_ rng: inout SplitMix64) -> GraphCore.Predicate {
        func group() -> GraphCore.Expression {
            let k = Int.random(in: -1..<groupCount, using: &rng)
            return k < 0 ? .constant(.null) : .variable("G\(k)")
        }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0, 1: return .comparison(Comparison(.keyPath("g"), .equal, group()))
        case 2: return .comparison(Comparison(.keyPath("g"), .in, .array((0..<Int.random(in: 1...3, using: &rng)).map { _ in group() })))
        default: return .comparison(Comparison(.keyPath("g"), .notEqual, group()))
        }
    }

    /// The values of `count` random items.
    static func items(_ count: Int, _ rng: inout SplitMix64) -> [[String: Value]] {
        (0..<count).map { n in
            var values: [String: Value] = ["n": .int(Int64(n))]
            for key in keys { values[key] = pool(key).randomElement(using: &rng) ?? .null }
            // c is an int32: keep it in range.
            if case .int(let v) = values["c"] ?? .null, Int32(exactly: v) == nil { values["c"] = .int(Int64(n % 7)) }
            return values
        }
    }

    /// A random comparison on a random key.
    static func comparison(_ rng: inout SplitMix64, key forced: String? = nil) -> GraphCore.Predicate {
        let key = forced ?? keys.randomElement(using: &rng) ?? "i"
        if key == "g" { return groupComparison(&rng) }
        let values = constants(key)
        func constant() -> Value { values.randomElement(using: &rng) ?? .null }
        let ops: [Comparison.Operator] = [.equal, .equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan,
                                          .greaterThanOrEqual, .between, .in, .beginsWith]
        let op = ops.randomElement(using: &rng) ?? .equal
        switch op {
        case .between: return .comparison(Comparison(.keyPath(key), .between, .array([.constant(constant()), .constant(constant())])))
        case .in: return .comparison(Comparison(.keyPath(key), .in, .array((0..<Int.random(in: 1...4, using: &rng)).map { _ in .constant(constant()) })))
        case .beginsWith:
            let prefix = (strings + ["\u{E9}", "e", "日", "A", "E", "Ab", "\u{C9}"]).randomElement(using: &rng) ?? ""
            return .comparison(Comparison(.keyPath(["s", "w"].randomElement(using: &rng) ?? "s"), .beginsWith, .constant(prefix.isNull ? "a" : prefix),
                                          options: folding(&rng)))
        case .equal where key == "s" || key == "w":
            return .comparison(Comparison(.keyPath(key), .equal, .constant(constant()), options: folding(&rng)))
        default: return .comparison(Comparison(.keyPath(key), op, .constant(constant())))
        }
    }

    /// No options half the time, else `[c]`, `[d]` or `[cd]`.
    static func folding(_ rng: inout SplitMix64) -> Comparison.Options {
        [[], [], [], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]].randomElement(using: &rng) ?? []
    }

    /// A random predicate: a comparison, a conjunction, sometimes a disjunction or a negation, or none.
    static func predicate(_ rng: inout SplitMix64) -> GraphCore.Predicate? {
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: return nil
        case 1...4: return comparison(&rng)
        case 5...7: return .and([comparison(&rng), comparison(&rng)])
        case 8: return .or([comparison(&rng), comparison(&rng)])
        case 9: return .not(comparison(&rng))
        default:
            // The compound index's case: a group and a term on `i` (or on anything).
            let second = comparison(&rng, key: Bool.random(using: &rng) ? "i" : nil)
            return .and([groupComparison(&rng), second])
        }
    }
}
