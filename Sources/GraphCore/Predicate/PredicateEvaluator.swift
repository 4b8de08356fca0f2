import Foundation

/// Something a predicate can be evaluated on: an object with values in property order.
///
/// ``ManagedObject`` (in a context) and ``CacheNode`` (in an atomic store) both are.
public protocol PredicateRecord {
    var objectID: ObjectID { get }
    /// The value at a property index of `objectID.entity`.
    func predicateValue(at index: Int) throws -> Value
}

/// Evaluates a ``Predicate`` in memory on records of one entity (and its sub-entities).
///
/// Key paths are resolved to property indexes once, when the evaluator is made, so an
/// unknown key fails early with the entity and key it names:
///
/// ```swift
/// let evaluator = try PredicateEvaluator(predicate, entity: song, resolve: { id in lookup[id] })
/// let matches = try records.filter { try evaluator.matches($0) }
/// ```
///
/// A key path that crosses a to-many relationship yields all the values reached; a
/// comparison on it is true when any of them matches. A comparison with a nil value is
/// false unless the other side is nil too (`==`), or not nil (`!=`).
public struct PredicateEvaluator<Record: PredicateRecord> {
    private let root: Node
    private let resolve: (ObjectID) throws -> Record?

    public init(_ predicate: Predicate, entity: EntityDescription, resolve: @escaping (ObjectID) throws -> Record?) throws {
        self.root = try Node(predicate, entity: entity)
        self.resolve = resolve
    }

    /// Whether the record satisfies the predicate.
    public func matches(_ record: Record) throws -> Bool {
        try evaluate(root, record)
    }

    // MARK: - Compiled form

    private indirect enum Node {
        case constant(Bool)
        case comparison(Operand, Comparison.Operator, Operand, Comparison.Options)
        case and([Node])
        case or([Node])
        case not(Node)

        init(_ predicate: Predicate, entity: EntityDescription) throws {
            switch predicate {
            case .constant(let b): self = .constant(b)
            case .and(let parts): self = .and(try parts.map { try Node($0, entity: entity) })
            case .or(let parts): self = .or(try parts.map { try Node($0, entity: entity) })
            case .not(let part): self = .not(try Node(part, entity: entity))
            case .comparison(let c):
                let options = c.options
                self = .comparison(try Operand(c.left, entity: entity, options: options), c.op,
                                   try Operand(c.right, entity: entity, options: options), options)
            }
        }
    }

    private enum Operand {
        case constant(Value)
        case path([Int])
        case evaluatedObject

        init(_ expression: Expression, entity: EntityDescription, options: Comparison.Options) throws {
            switch expression {
            case .constant(let value):
                self = .constant(value)
            case .evaluatedObject:
                self = .evaluatedObject
            case .keyPath(let path):
                var indexes: [Int] = []
                var current: EntityDescription? = entity
                for component in path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
                    guard let entity = current else {
                        throw GraphError.unknownKey(entity: "(attribute value)", key: path)
                    }
                    guard let index = entity.index(ofProperty: component) else {
                        throw GraphError.unknownKey(entity: entity.name, key: component)
                    }
                    indexes.append(index)
                    current = entity.destination(ofPropertyAt: index)
                }
                self = .path(indexes)
            }
        }
    }

    // MARK: - Evaluation

    private func evaluate(_ node: Node, _ record: Record) throws -> Bool {
        switch node {
        case .constant(let b): return b
        case .and(let parts):
            for part in parts where try !evaluate(part, record) { return false }
            return true
        case .or(let parts):
            for part in parts where try evaluate(part, record) { return true }
            return false
        case .not(let part): return try !evaluate(part, record)
        case .comparison(let left, let op, let right, let options):
            let lhs = try values(of: left, record)
            let rhs = try values(of: right, record)
            for l in lhs {
                for r in rhs where ValueComparison.compare(l, op, r, options: options) { return true }
            }
            return false
        }
    }

    /// The values an operand reaches: one, or several across a to-many relationship.
    private func values(of operand: Operand, _ record: Record) throws -> [Value] {
        switch operand {
        case .constant(let value): return [value]
        case .evaluatedObject: return [.object(record.objectID)]
        case .path(let indexes):
            var records: [Record] = [record]
            var result: [Value] = []
            for (step, index) in indexes.enumerated() {
                let last = step == indexes.count - 1
                var next: [Record] = []
                for current in records {
                    let value = try current.predicateValue(at: index)
                    if last {
                        if case .objects(let ids) = value {
                            result.append(contentsOf: ids.map(Value.object))
                        } else {
                            result.append(value)
                        }
                        continue
                    }
                    switch value {
                    case .object(let id): if let related = try resolve(id) { next.append(related) }
                    case .objects(let ids): for id in ids { if let related = try resolve(id) { next.append(related) } }
                    default: break
                    }
                }
                if last { break }
                if next.isEmpty { return [.null] }
                records = next
            }
            return result.isEmpty && indexes.count > 1 ? [.null] : result
        }
    }
}
