import Foundation

// `$variables`: listing them and binding them to values.

extension Predicate {
    /// The names of the variables that need a value (those a `SUBQUERY` binds are not listed).
    public var variables: Set<String> {
        var names = Set<String>()
        collectVariables(bound: [], into: &names)
        return names
    }

    /// The predicate with `$variables` replaced by values; variables without a value stay.
    ///
    /// ```swift
    /// let template = try Predicate(format: "title BEGINSWITH[c] $prefix")
    /// let p = template.withSubstitutionVariables(["prefix": "blue"])
    /// ```
    public func withSubstitutionVariables(_ values: [String: PredicateValue]) -> Predicate {
        substituted(values)
    }

    func substituted(_ values: [String: PredicateValue]) -> Predicate {
        substituted(expressions: values.mapValues { PredicateParser.expression($0) })
    }

    /// The predicate with each variable of `expressions` replaced by its expression.
    func substituted(expressions values: [String: Expression]) -> Predicate {
        if values.isEmpty { return self }
        switch self {
        case .constant: return self
        case .comparison(var c):
            c.left = c.left.substituted(values)
            c.right = c.right.substituted(values)
            return .comparison(c)
        case .and(let parts): return .and(parts.map { $0.substituted(expressions: values) })
        case .or(let parts): return .or(parts.map { $0.substituted(expressions: values) })
        case .not(let p): return .not(p.substituted(expressions: values))
        }
    }

    func collectVariables(bound: Set<String>, into names: inout Set<String>) {
        switch self {
        case .constant: break
        case .comparison(let c):
            c.left.collectVariables(bound: bound, into: &names)
            c.right.collectVariables(bound: bound, into: &names)
        case .and(let parts), .or(let parts):
            for part in parts { part.collectVariables(bound: bound, into: &names) }
        case .not(let p): p.collectVariables(bound: bound, into: &names)
        }
    }
}

extension Expression {
    func substituted(_ values: [String: Expression]) -> Expression {
        switch self {
        case .constant, .evaluatedObject, .keyPath: return self
        case .variable(let name): return values[name] ?? self
        case .path(let base, let path): return .path(base.substituted(values), path)
        case .array(let elements): return .array(elements.map { $0.substituted(values) })
        case .aggregate(let function, let base, let key): return .aggregate(function, base.substituted(values), key)
        case .function(let function, let arguments): return .function(function, arguments.map { $0.substituted(values) })
        case .ternary(let condition, let a, let b):
            return .ternary(condition.substituted(expressions: values), a.substituted(values), b.substituted(values))
        case .cast(let expression, let type): return .cast(expression.substituted(values), type)
        case .index(let collection, let index):
            if case .position(let position) = index { return .index(collection.substituted(values), .position(position.substituted(values))) }
            return .index(collection.substituted(values), index)
        case .subquery(let collection, let variable, let predicate):
            var inner = values
            inner[variable] = nil
            return .subquery(collection.substituted(values), variable: variable, predicate.substituted(expressions: inner))
        }
    }

    func collectVariables(bound: Set<String>, into names: inout Set<String>) {
        switch self {
        case .constant, .evaluatedObject, .keyPath: break
        case .variable(let name): if !bound.contains(name) { names.insert(name) }
        case .path(let base, _), .aggregate(_, let base, _): base.collectVariables(bound: bound, into: &names)
        case .array(let elements): for e in elements { e.collectVariables(bound: bound, into: &names) }
        case .function(_, let arguments): for a in arguments { a.collectVariables(bound: bound, into: &names) }
        case .ternary(let condition, let a, let b):
            condition.collectVariables(bound: bound, into: &names)
            a.collectVariables(bound: bound, into: &names)
            b.collectVariables(bound: bound, into: &names)
        case .cast(let expression, _): expression.collectVariables(bound: bound, into: &names)
        case .index(let collection, let index):
            collection.collectVariables(bound: bound, into: &names)
            if case .position(let position) = index { position.collectVariables(bound: bound, into: &names) }
        case .subquery(let collection, let variable, let predicate):
            collection.collectVariables(bound: bound, into: &names)
            predicate.collectVariables(bound: bound.union([variable]), into: &names)
        }
    }
}
