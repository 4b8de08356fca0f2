import Foundation

/// Something a predicate can be evaluated on: an object with values in property order.
///
/// ``ManagedObject`` (in a context) and ``ObjectSnapshot`` (in an atomic store) both are.
public protocol PredicateRecord {
    /// The record's object ID.
    var objectID: ObjectID { get }
    /// The value at a property index of `objectID.entity`.
    func predicateValue(at index: Int) throws -> Value
}

/// Evaluates a ``Predicate`` in memory on records of one entity (and its sub-entities).
///
/// The predicate is compiled once, when the evaluator is made: key paths become property
/// indexes (an unknown key fails here, naming the entity and key), constants are checked
/// against the properties they meet, `[c]`/`[d]` constants are folded, `LIKE` and `MATCHES`
/// patterns prepared. Each record is then judged without string lookups:
///
/// ```swift
/// let evaluator = try PredicateEvaluator(predicate, entity: song, resolve: { id in lookup[id] })
/// let matches = try records.filter { try evaluator.matches($0) }
/// ```
///
/// `resolve` finds the record a relationship leads to (nil when it is gone). The
/// semantics (nil, numbers, collections) are described in `docs/PREDICATES.md`.
public struct PredicateEvaluator<Record: PredicateRecord> {
    private let compiled: CompiledPredicate
    private let resolve: (ObjectID) throws -> Record?
    private let deadline: FetchDeadline?

    /// Compiles `predicate` for records of `entity`. With a `deadline`, ``matches(_:)``
    /// throws ``GraphError/timeLimitExceeded(entity:)`` once it has passed (checked between
    /// records, in subqueries, aggregates and long `MATCHES` texts).
    ///
    /// - Throws: ``PredicateError`` for an unknown key, a type mismatch, an unbound variable
    ///   or an invalid regular expression.
    public init(_ predicate: Predicate, entity: EntityDescription, deadline: ContinuousClock.Instant? = nil,
                resolve: @escaping (ObjectID) throws -> Record?) throws {
        try self.init(predicate, entity: entity, watching: deadline.map { FetchDeadline($0, entity: entity.name) }, resolve: resolve)
    }

    /// Compiles `predicate`, checking `deadline` (shared with the fetch's own loops).
    init(_ predicate: Predicate, entity: EntityDescription, watching deadline: FetchDeadline?,
         resolve: @escaping (ObjectID) throws -> Record?) throws {
        self.compiled = try PredicateCompiler.compile(predicate, entity: entity)
        self.resolve = resolve
        self.deadline = deadline
    }

    /// Whether a key path of the predicate leaves the evaluated object.
    var followsRelationships: Bool { compiled.followsRelationships }

    /// Whether the record satisfies the predicate.
    public func matches(_ record: Record) throws -> Bool {
        try deadline?.check()
        var slots = compiled.slotCount == 0 ? [] : [Value](repeating: .null, count: compiled.slotCount)
        let holds = try evaluate(compiled.root, record, &slots)
        // A MATCHES cut off by the deadline answered false: that answer must not be used.
        if let deadline, deadline.passed { throw deadline.error }
        return holds
    }

    // MARK: - Predicates

    func evaluate(_ node: PredicateNode, _ record: Record, _ slots: inout [Value]) throws -> Bool {
        switch node {
        case .test(let operand, let test):
            return test.matches(try value(operand, record, &slots), deadline: deadline)
        case .and(let parts):
            for part in parts where try !evaluate(part, record, &slots) { return false }
            return true
        case .or(let parts):
            for part in parts where try evaluate(part, record, &slots) { return true }
            return false
        case .not(let part):
            return try !evaluate(part, record, &slots)
        case .constant(let b):
            return b
        case .compare(let comparison):
            return try compare(comparison, record, &slots)
        }
    }

    private func compare(_ c: CompiledComparison, _ record: Record, _ slots: inout [Value]) throws -> Bool {
        switch c.modifier {
        case .direct:
            guard c.left.isCollection else { return try test(try value(c.left, record, &slots), c, record, &slots) }
            if c.op == .contains { return try collectionContains(c, record, &slots) }
            return try any(c.left, record, &slots) { element, slots in try test(element, c, record, &slots) }
        case .any:
            return try any(c.left, record, &slots) { element, slots in try test(element, c, record, &slots) }
        case .all:
            return try !any(c.left, record, &slots) { element, slots in try !test(element, c, record, &slots) }
        case .none:
            return try !any(c.left, record, &slots) { element, slots in try test(element, c, record, &slots) }
        }
    }

    /// `collection CONTAINS value` (membership), or `CONTAINS {values}` (every one is there).
    private func collectionContains(_ c: CompiledComparison, _ record: Record, _ slots: inout [Value]) throws -> Bool {
        var wanted: [Value] = []
        switch c.right {
        case .constant(let test): wanted = [test.constant]
        case .list(let list): wanted = list.tests.map(\.constant)
        case .operand(let operand):
            if operand.isCollection {
                try forEach(operand, record, &slots) { element, _ in wanted.append(element); return false }
            } else {
                wanted = [try value(operand, record, &slots)]
            }
        }
        for needle in wanted {
            let found = try any(c.left, record, &slots) { element, _ in ValueComparison.equal(element, needle, options: c.options) }
            if !found { return false }
        }
        return true
    }

    /// One left value against the right side.
    private func test(_ left: Value, _ c: CompiledComparison, _ record: Record, _ slots: inout [Value]) throws -> Bool {
        switch c.right {
        case .constant(let test): return test.matches(left, deadline: deadline)
        case .list(let list): return list.matches(left, deadline: deadline)
        case .operand(let operand):
            if operand.isCollection {
                if c.op == .between {
                    var bounds: [Value] = []
                    try forEach(operand, record, &slots) { element, _ in bounds.append(element); return false }
                    guard bounds.count == 2 else { return false }
                    return try ListTest(.between, bounds, options: c.options).matches(left)
                }
                let op: Comparison.Operator = c.op == .in ? .equal : c.op
                return try any(operand, record, &slots) { element, _ in pair(left, op, element, c.options) }
            }
            return pair(left, c.op, try value(operand, record, &slots), c.options)
        }
    }

    /// Two values computed while evaluating (no preparation to reuse).
    private func pair(_ left: Value, _ op: Comparison.Operator, _ right: Value, _ options: Comparison.Options) -> Bool {
        guard let test = try? ValueTest(op, right, options: options) else { return false }
        return test.matches(left, deadline: deadline)
    }

    // MARK: - Values

    /// The value of a single-valued operand.
    func value(_ operand: Operand, _ record: Record, _ slots: inout [Value]) throws -> Value {
        switch operand {
        case .attribute(let index):
            return try record.predicateValue(at: index)
        case .constant(let value):
            return value
        case .path(let base, let indexes, _):
            guard var current = try start(base, record, &slots) else { return .null }
            for index in indexes.dropLast() {
                guard case .object(let id) = try current.predicateValue(at: index), let next = try resolve(id) else { return .null }
                current = next
            }
            guard let last = indexes.last else { return .null }
            return try current.predicateValue(at: last)
        case .evaluatedObject:
            return .object(record.objectID)
        case .slot(let slot):
            return slots[slot]
        case .aggregate(let function, let collection):
            return try aggregate(function, collection, record, &slots)
        case .list, .subquery, .union, .function(.mode, _, _):
            return .null
        case .function, .ternary, .cast, .index:
            return try computed(operand, record, &slots)
        }
    }

    /// Calls `body` with each element of an operand (one value for a single-valued one)
    /// until it returns true; returns whether it did.
    func forEach(_ operand: Operand, _ record: Record, _ slots: inout [Value],
                 _ body: (Value, inout [Value]) throws -> Bool) throws {
        switch operand {
        case .list(let elements):
            for element in elements where try body(try value(element, record, &slots), &slots) { return }
        case .constant(.objects(let ids)):
            for id in ids where try body(.object(id), &slots) { return }
        case .path(let base, let indexes, true):
            guard let first = try start(base, record, &slots) else { return }
            _ = try walk(first, indexes[...], &slots, body)
        case .subquery(let collection, let slot, let predicate):
            var stop = false
            try forEach(collection, record, &slots) { element, slots in
                try deadline?.check()
                guard case .object(let id) = element, let elementRecord = try resolve(id) else { return false }
                let saved = slots[slot]
                slots[slot] = element
                let holds = try evaluate(predicate, elementRecord, &slots)
                slots[slot] = saved
                if holds, try body(element, &slots) { stop = true }
                return stop
            }
        case .union, .function(.mode, _, _):
            try forEachComputed(operand, record, &slots, body)
        default:
            _ = try body(try value(operand, record, &slots), &slots)
        }
    }

    /// The record a key path starts at: the evaluated one, a subquery variable's, or the
    /// object an operand gives (nil when it gives nil, something else, or a deleted object).
    private func start(_ base: PathBase, _ record: Record, _ slots: inout [Value]) throws -> Record? {
        switch base {
        case .record: return record
        case .slot(let slot):
            guard case .object(let id) = slots[slot] else { return nil }
            return try resolve(id)
        case .operand(let operand):
            guard case .object(let id) = try value(operand, record, &slots) else { return nil }
            return try resolve(id)
        }
    }

    /// Follows `indexes` from `record` across to-one and to-many relationships; true when `body` stopped.
    private func walk(_ record: Record, _ indexes: ArraySlice<Int>, _ slots: inout [Value],
                      _ body: (Value, inout [Value]) throws -> Bool) throws -> Bool {
        guard let index = indexes.first else { return false }
        let value = try record.predicateValue(at: index)
        if indexes.count == 1 {
            if case .objects(let ids) = value {
                for id in ids {
                    try deadline?.check()
                    if try body(.object(id), &slots) { return true }
                }
                return false
            }
            return try body(value, &slots)
        }
        switch value {
        case .object(let id):
            if let next = try resolve(id) { return try walk(next, indexes.dropFirst(), &slots, body) }
        case .objects(let ids):
            for id in ids {
                try deadline?.check()
                if let next = try resolve(id), try walk(next, indexes.dropFirst(), &slots, body) { return true }
            }
        default:
            break
        }
        return false
    }

    private func any(_ operand: Operand, _ record: Record, _ slots: inout [Value],
                     _ predicate: (Value, inout [Value]) throws -> Bool) throws -> Bool {
        var found = false
        try forEach(operand, record, &slots) { element, slots in
            found = try predicate(element, &slots)
            return found
        }
        return found
    }

    private func aggregate(_ function: AggregateFunction, _ collection: Operand, _ record: Record,
                           _ slots: inout [Value]) throws -> Value {
        var accumulator = Aggregation(function)
        try forEach(collection, record, &slots) { element, _ in
            accumulator.add(element)
            return false
        }
        return accumulator.result
    }
}
