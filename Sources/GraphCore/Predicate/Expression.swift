import Foundation

/// One side of a comparison: a constant, a key path, the object itself, a variable, an
/// array, a collection function or a subquery.
public indirect enum Expression: Sendable, Hashable, CustomStringConvertible {
    /// A constant value: `42`, `"Blue"`, `nil`, an object ID given as `%@`.
    case constant(Value)
    /// The evaluated object itself (`SELF`).
    case evaluatedObject
    /// A dotted key path from the evaluated object: `title`, `album.artist.name`,
    /// `composers.name` (across a to-many relationship: every name reached).
    case keyPath(String)
    /// A key path from another expression's value: `$s.title` is
    /// `.path(.variable("s"), "title")`.
    case path(Expression, String)
    /// A variable: `$name`. Top-level variables are bound with
    /// ``Predicate/withSubstitutionVariables(_:)``; a ``subquery(_:variable:_:)`` binds its own.
    case variable(String)
    /// An array of expressions: `{1, 2, 3}`, or a `%@` given an array.
    case array([Expression])
    /// A function of a collection: `songs.@count` is `.aggregate(.count, .keyPath("songs"), nil)`,
    /// `songs.@sum.plays` is `.aggregate(.sum, .keyPath("songs"), "plays")`.
    case aggregate(AggregateFunction, Expression, String?)
    /// `SUBQUERY(collection, $variable, predicate)`: the elements of the collection for which
    /// the predicate holds (inside it, key paths and `SELF` refer to the element, as does the variable).
    case subquery(Expression, variable: String, Predicate)
    /// A built-in function of NSExpression: `sqrt(x)`, `sum(songs.plays)`, `now()`; the
    /// arithmetic and bitwise operators are functions too (`plays + 1` is
    /// `.function(.add, [.keyPath("plays"), .constant(1)])`, `-x` is `0 - x`).
    case function(BuiltinFunction, [Expression])
    /// `TERNARY(predicate, a, b)`: `a` where the predicate holds, else `b`.
    case ternary(Predicate, Expression, Expression)
    /// `CAST(expression, "type")` of a value known only when evaluating (a cast of a literal
    /// is folded into a ``constant(_:)`` when parsed). The types are `NSNumber`, `NSDate` and `NSString`.
    case cast(Expression, String)
    /// `collection[FIRST]`, `[LAST]`, `[SIZE]`, `[n]`: an element of a collection or its size.
    case index(Expression, IndexSubscript)

    /// A key path expression: `.key("album.title")`.
    public static func key(_ path: String) -> Expression { .keyPath(path) }
}

/// What `[…]` after a collection takes from it.
public indirect enum IndexSubscript: Sendable, Hashable {
    /// `[FIRST]`: the first element (nil for an empty collection).
    case first
    /// `[LAST]`: the last element (nil for an empty collection).
    case last
    /// `[SIZE]`: the number of elements.
    case size
    /// `[n]`: the element at index n, from 0 (nil when out of range or not an integer).
    case position(Expression)
}

/// A function applied to a collection with `.@name`.
public enum AggregateFunction: String, Sendable, Hashable, CaseIterable {
    /// `@count`: the number of elements (or of objects in a to-many relationship).
    case count = "@count"
    /// `@sum`: the sum of the numbers (nil elements are skipped; 0 for none).
    case sum = "@sum"
    /// `@avg`: the average of the numbers (nil for none).
    case average = "@avg"
    /// `@min`: the smallest value (nil for none).
    case min = "@min"
    /// `@max`: the largest value (nil for none).
    case max = "@max"
    /// `@distinctUnionOfObjects`: the values, each once (a collection).
    case distinctUnionOfObjects = "@distinctUnionOfObjects"
    /// `@unionOfObjects`: the values (a collection).
    case unionOfObjects = "@unionOfObjects"
    /// `@distinctUnionOfArrays`: the values of the nested collections, each once. Key paths
    /// across to-many relationships are already flattened, so this is `@distinctUnionOfObjects`.
    case distinctUnionOfArrays = "@distinctUnionOfArrays"
    /// `@unionOfArrays`: the values of the nested collections (as `@unionOfObjects`).
    case unionOfArrays = "@unionOfArrays"
    /// `@distinctUnionOfSets`: as `@distinctUnionOfArrays`.
    case distinctUnionOfSets = "@distinctUnionOfSets"

    /// Whether the operator yields a collection (the unions) rather than one value.
    public var yieldsCollection: Bool {
        switch self {
        case .count, .sum, .average, .min, .max: return false
        default: return true
        }
    }

    /// Whether the operator gives one value per collection and keeps distinct values only.
    var isDistinct: Bool { self == .distinctUnionOfObjects || self == .distinctUnionOfArrays || self == .distinctUnionOfSets }
}

extension Expression: ExpressibleByStringLiteral {
    /// A string literal is a key path: `"album.title" == .constant("Blue")`.
    public init(stringLiteral value: String) { self = .keyPath(value) }
}

extension Expression {
    /// `key == value`.
    public static func == (lhs: Expression, rhs: Value) -> Predicate { .comparison(.init(lhs, .equal, .constant(rhs))) }
    /// `key != value`.
    public static func != (lhs: Expression, rhs: Value) -> Predicate { .comparison(.init(lhs, .notEqual, .constant(rhs))) }
    /// `key < value`.
    public static func < (lhs: Expression, rhs: Value) -> Predicate { .comparison(.init(lhs, .lessThan, .constant(rhs))) }
    /// `key <= value`.
    public static func <= (lhs: Expression, rhs: Value) -> Predicate { .comparison(.init(lhs, .lessThanOrEqual, .constant(rhs))) }
    /// `key > value`.
    public static func > (lhs: Expression, rhs: Value) -> Predicate { .comparison(.init(lhs, .greaterThan, .constant(rhs))) }
    /// `key >= value`.
    public static func >= (lhs: Expression, rhs: Value) -> Predicate { .comparison(.init(lhs, .greaterThanOrEqual, .constant(rhs))) }

    /// `key BEGINSWITH value`, optionally `[c]`/`[d]`.
    public func beginsWith(_ value: String, options: Comparison.Options = []) -> Predicate {
        .comparison(.init(self, .beginsWith, .constant(.string(value)), options: options))
    }
    /// `key ENDSWITH value`, optionally `[c]`/`[d]`.
    public func endsWith(_ value: String, options: Comparison.Options = []) -> Predicate {
        .comparison(.init(self, .endsWith, .constant(.string(value)), options: options))
    }
    /// `key CONTAINS value`, optionally `[c]`/`[d]`.
    public func contains(_ value: String, options: Comparison.Options = []) -> Predicate {
        .comparison(.init(self, .contains, .constant(.string(value)), options: options))
    }
    /// Equality with string options: `.key("name").equals("blue", options: .caseInsensitive)`.
    public func equals(_ value: Value, options: Comparison.Options) -> Predicate {
        .comparison(.init(self, .equal, .constant(value), options: options))
    }
    /// `key IN {values}`.
    public func isIn(_ values: [Value]) -> Predicate {
        .comparison(.init(self, .in, .array(values.map(Expression.constant))))
    }
    /// `key BETWEEN {low, high}`.
    public func isBetween(_ low: Value, and high: Value) -> Predicate {
        .comparison(.init(self, .between, .array([.constant(low), .constant(high)])))
    }
}
