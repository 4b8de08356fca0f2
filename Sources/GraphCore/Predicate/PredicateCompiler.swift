import Foundation

/// Compiles a ``Predicate`` against an entity: resolves key paths to property indexes,
/// checks the types of constants against the properties they meet, folds and prepares
/// constants. Errors name the entity and key, or what met what.
struct PredicateCompiler {
    /// How deeply compiled predicates may nest (predicates built in code can nest deeper
    /// than parsed ones; chains of one operator are flattened first).
    static let maximumNesting = 256

    var slotCount = 0
    var followsRelationships = false
    var depth = 0

    /// What a key path or variable means where it is compiled.
    struct Scope {
        /// The entity of the record key paths start from.
        var entity: EntityDescription
        /// Subquery variables in reach: their slots and entities.
        var variables: [String: (slot: Int, entity: EntityDescription)] = [:]
        /// The slot of the innermost subquery's variable: its element is the record.
        var innermostSlot: Int?
    }

    /// What is known about an operand's values before evaluating it.
    enum OperandType {
        case attribute(AttributeType)
        case object(EntityDescription)
        case number
        case unknown
    }

    struct Typed {
        var operand: Operand
        var type: OperandType
        /// How errors name it: `Song.plays`, `SELF`, `"Blue"`.
        var subject: String
    }

    static func compile(_ predicate: Predicate, entity: EntityDescription) throws(PredicateError) -> CompiledPredicate {
        var compiler = PredicateCompiler()
        let root = try compiler.node(predicate, Scope(entity: entity))
        return CompiledPredicate(root: root, slotCount: compiler.slotCount, followsRelationships: compiler.followsRelationships)
    }

    // MARK: - Predicates

    mutating func node(_ predicate: Predicate, _ scope: Scope) throws(PredicateError) -> PredicateNode {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumNesting { throw .nestingTooDeep(limit: Self.maximumNesting, offset: 0) }
        switch predicate {
        case .constant(let b):
            return .constant(b)
        case .and(let parts):
            var nodes: [PredicateNode] = []
            for part in Self.flatten(parts, and: true) {
                let node = try node(part, scope)
                if case .constant(let b) = node {
                    if !b { return .constant(false) }
                } else {
                    nodes.append(node)
                }
            }
            return nodes.isEmpty ? .constant(true) : nodes.count == 1 ? nodes[0] : .and(nodes)
        case .or(let parts):
            var nodes: [PredicateNode] = []
            for part in Self.flatten(parts, and: false) {
                let node = try node(part, scope)
                if case .constant(let b) = node {
                    if b { return .constant(true) }
                } else {
                    nodes.append(node)
                }
            }
            return nodes.isEmpty ? .constant(false) : nodes.count == 1 ? nodes[0] : .or(nodes)
        case .not(let inner):
            let node = try node(inner, scope)
            if case .constant(let b) = node { return .constant(!b) }
            return .not(node)
        case .comparison(let comparison):
            return try self.comparison(comparison, scope)
        }
    }

    /// The parts of nested ANDs (or ORs) as one list, without recursion (a chain built in
    /// code with `&&` nests one level per operand).
    static func flatten(_ parts: [Predicate], and: Bool) -> [Predicate] {
        var stack = Array(parts.reversed())
        var result: [Predicate] = []
        while let part = stack.popLast() {
            switch (part, and) {
            case (.and(let inner), true), (.or(let inner), false): stack.append(contentsOf: inner.reversed())
            default: result.append(part)
            }
        }
        return result
    }

    // MARK: - Comparisons

    mutating func comparison(_ c: Comparison, _ scope: Scope) throws(PredicateError) -> PredicateNode {
        var left = try expression(c.left, scope)
        var right = try expression(c.right, scope)
        var op = c.op
        // A constant on the left of a plain comparison goes right, where it is prepared.
        if c.modifier == .direct, Self.isConstant(left.operand), !Self.isConstant(right.operand), let flipped = Self.flipped(op) {
            swap(&left, &right)
            op = flipped
        }
        try check(&left, op, &right, c.modifier)

        let rightSide: RightSide
        if case .constant(let value) = right.operand, !right.operand.isCollection {
            if op == .between {
                throw .typeMismatch(subject: "BETWEEN", expected: "two values {low, high}", got: "\(value.kindName) \(value.formatLiteral)")
            }
            rightSide = .constant(try ValueTest(op, value, options: c.options))
        } else if let constants = Self.constants(right.operand) {
            rightSide = .list(try ListTest(op, constants, options: c.options))
        } else {
            if op == .between, case .list(let bounds) = right.operand, bounds.count != 2 {
                throw .typeMismatch(subject: "BETWEEN", expected: "two values {low, high}", got: "\(bounds.count) values")
            }
            rightSide = .operand(right.operand)
        }
        if c.modifier == .direct, !left.operand.isCollection, case .constant(let test) = rightSide {
            return .test(left.operand, test)
        }
        return .compare(CompiledComparison(left: left.operand, modifier: c.modifier, op: op, right: rightSide, options: c.options))
    }

    static func isConstant(_ operand: Operand) -> Bool {
        if case .constant = operand { return true }
        return constants(operand) != nil
    }

    /// The values of a list of constants (or of a constant list of objects).
    static func constants(_ operand: Operand) -> [Value]? {
        switch operand {
        case .constant(.objects(let ids)): return ids.map(Value.object)
        case .list(let elements):
            var values: [Value] = []
            for element in elements {
                guard case .constant(let value) = element else { return nil }
                values.append(value)
            }
            return values
        default: return nil
        }
    }

    static func flipped(_ op: Comparison.Operator) -> Comparison.Operator? {
        switch op {
        case .equal, .notEqual: return op
        case .lessThan: return .greaterThan
        case .lessThanOrEqual: return .greaterThanOrEqual
        case .greaterThan: return .lessThan
        case .greaterThanOrEqual: return .lessThanOrEqual
        default: return nil
        }
    }
}
