import Foundation

/// A condition on objects: comparisons of key paths and values, joined by AND, OR and NOT.
///
/// Built in code:
///
/// ```swift
/// let p: Predicate = .key("plays") > 10 && .key("album.title") == "Blue"
/// ```
///
/// The value is a plain tree (an AST) that a store can translate into its own query; the
/// in-memory evaluator (``PredicateEvaluator``) serves every store by default.
public indirect enum Predicate: Sendable, Hashable, CustomStringConvertible {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    case comparison(Comparison)
    case and([Predicate])
    case or([Predicate])
    case not(Predicate)

    public static let `true` = Predicate.constant(true)
    public static let `false` = Predicate.constant(false)

    public var description: String {
        switch self {
        case .constant(let b): return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let c): return c.description
        case .and(let parts): return "(" + parts.map(\.description).joined(separator: " AND ") + ")"
        case .or(let parts): return "(" + parts.map(\.description).joined(separator: " OR ") + ")"
        case .not(let p): return "NOT \(p)"
        }
    }

    /// A key path expression, so that a chain starting where a predicate is expected reads
    /// naturally: `request.predicate = .key("title").beginsWith("Blue")`.
    public static func key(_ path: String) -> Expression { .keyPath(path) }

    public static func && (lhs: Predicate, rhs: Predicate) -> Predicate { .and([lhs, rhs]) }
    public static func || (lhs: Predicate, rhs: Predicate) -> Predicate { .or([lhs, rhs]) }
    public static prefix func ! (operand: Predicate) -> Predicate { .not(operand) }
}

/// A comparison of two expressions.
public struct Comparison: Sendable, Hashable, CustomStringConvertible {
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case lessThan = "<"
        case lessThanOrEqual = "<="
        case greaterThan = ">"
        case greaterThanOrEqual = ">="
        case beginsWith = "BEGINSWITH"
        case endsWith = "ENDSWITH"
        case contains = "CONTAINS"
    }

    /// `[c]` and `[d]`: compare strings ignoring case and/or diacritics.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let caseInsensitive = Options(rawValue: 1)
        public static let diacriticInsensitive = Options(rawValue: 2)
    }

    public var left: Expression
    public var op: Operator
    public var right: Expression
    public var options: Options

    public init(_ left: Expression, _ op: Operator, _ right: Expression, options: Options = []) {
        self.left = left
        self.op = op
        self.right = right
        self.options = options
    }

    public var description: String {
        var flags = ""
        if !options.isEmpty {
            flags = "[" + (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "") + "]"
        }
        return "\(left) \(op.rawValue)\(flags) \(right)"
    }
}

extension Expression {
    public static func == (lhs: Expression, rhs: Value) -> Predicate { .comparison(.init(lhs, .equal, .constant(rhs))) }
    public static func != (lhs: Expression, rhs: Value) -> Predicate { .comparison(.init(lhs, .notEqual, .constant(rhs))) }
    public static func < (lhs: Expression, rhs: Value) -> Predicate { .comparison(.init(lhs, .lessThan, .constant(rhs))) }
    public static func <= (lhs: Expression, rhs: Value) -> Predicate { .comparison(.init(lhs, .lessThanOrEqual, .constant(rhs))) }
    public static func > (lhs: Expression, rhs: Value) -> Predicate { .comparison(.init(lhs, .greaterThan, .constant(rhs))) }
    public static func >= (lhs: Expression, rhs: Value) -> Predicate { .comparison(.init(lhs, .greaterThanOrEqual, .constant(rhs))) }

    /// `key BEGINSWITH value`, optionally `[c]`/`[d]`.
    public func beginsWith(_ value: String, options: Comparison.Options = []) -> Predicate {
        .comparison(.init(self, .beginsWith, .constant(.string(value)), options: options))
    }
    public func endsWith(_ value: String, options: Comparison.Options = []) -> Predicate {
        .comparison(.init(self, .endsWith, .constant(.string(value)), options: options))
    }
    public func contains(_ value: String, options: Comparison.Options = []) -> Predicate {
        .comparison(.init(self, .contains, .constant(.string(value)), options: options))
    }
    /// Equality with string options: `.key("name").equals("blue", options: .caseInsensitive)`.
    public func equals(_ value: Value, options: Comparison.Options) -> Predicate {
        .comparison(.init(self, .equal, .constant(value), options: options))
    }
}
