import Foundation

// Expressions: key paths resolved against the model, variables given slots, constants
// checked against (and converted to) the type of what they are compared with.

extension PredicateCompiler {
    mutating func expression(_ expression: Expression, _ scope: Scope) throws(PredicateError) -> Typed {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumNesting { throw .nestingTooDeep(limit: Self.maximumNesting, offset: 0) }
        switch expression {
        case .constant(let value):
            return Typed(operand: .constant(value), type: .unknown, subject: value.formatLiteral)
        case .evaluatedObject:
            return Typed(operand: .evaluatedObject, type: .object(scope.entity), subject: "SELF")
        case .keyPath(let path):
            return try keyPath(path, from: .record, entity: scope.entity)
        case .variable(let name):
            guard let variable = scope.variables[name] else { throw .unboundVariable(name) }
            let operand: Operand = variable.slot == scope.innermostSlot ? .evaluatedObject : .slot(variable.slot)
            return Typed(operand: operand, type: .object(variable.entity), subject: "$" + name)
        case .path(let base, let path):
            switch base {
            case .evaluatedObject:
                return try keyPath(path, from: .record, entity: scope.entity)
            case .variable(let name):
                guard let variable = scope.variables[name] else { throw .unboundVariable(name) }
                let start: PathBase = variable.slot == scope.innermostSlot ? .record : .slot(variable.slot)
                return try keyPath(path, from: start, entity: variable.entity, subject: "$" + name)
            default:
                // A key after an index (`songs[FIRST].title`) or another expression giving one object.
                let start = try self.expression(base, scope)
                guard case .object(let entity) = start.type, !start.operand.isCollection else {
                    throw .typeMismatch(subject: "the key path \(path)", expected: "an object or a $variable before it", got: base.description)
                }
                return try keyPath(path, from: .operand(start.operand), entity: entity, subject: start.subject)
            }
        case .array(let elements):
            var operands: [Operand] = []
            for element in elements {
                let typed = try self.expression(element, scope)
                if typed.operand.isCollection {
                    throw .typeMismatch(subject: "an array element", expected: "one value", got: "the collection \(element)")
                }
                operands.append(typed.operand)
            }
            return Typed(operand: .list(operands), type: .unknown, subject: expression.description)
        case .aggregate(let function, let base, let key):
            return try aggregate(function, base, key, scope)
        case .subquery(let collection, let variable, let predicate):
            let source = try self.expression(collection, scope)
            guard source.operand.isCollection, case .object(let element) = source.type else {
                throw .typeMismatch(subject: "SUBQUERY", expected: "a to-many relationship as its collection", got: source.subject)
            }
            let slot = slotCount
            slotCount += 1
            var inner = Scope(entity: element, variables: scope.variables, innermostSlot: slot)
            inner.variables[variable] = (slot, element)
            let node = try node(predicate, inner)
            followsRelationships = true
            return Typed(operand: .subquery(source.operand, slot: slot, node), type: .object(element), subject: expression.description)
        case .function(let function, let arguments):
            return try self.function(function, arguments, expression, scope)
        case .ternary(let condition, let whenTrue, let whenFalse):
            return try ternary(condition, whenTrue, whenFalse, expression, scope)
        case .cast(let inner, let type):
            return try cast(inner, type, expression, scope)
        case .index(let collection, let index):
            return try self.index(collection, index, expression, scope)
        }
    }

    /// `collection.@function[.key]`.
    mutating func aggregate(_ function: AggregateFunction, _ base: Expression, _ key: String?,
                            _ scope: Scope) throws(PredicateError) -> Typed {
        var source = try expression(base, scope)
        if let key {
            // `songs.@sum.plays` reads `plays` of every song: extend the collection's path.
            guard case .path(let start, let indexes, _) = source.operand, case .object(let element) = source.type else {
                throw .typeMismatch(subject: "\(function.rawValue).\(key)", expected: "a to-many key path before it", got: source.subject)
            }
            let tail = try keyPath(key, from: .record, entity: element)
            let tailIndexes: [Int]
            switch tail.operand {
            case .attribute(let index): tailIndexes = [index]
            case .path(_, let more, _): tailIndexes = more
            default: tailIndexes = []
            }
            source = Typed(operand: .path(start, indexes + tailIndexes, many: true), type: tail.type,
                           subject: "\(source.subject).\(key)")
        }
        let subject = "\(function.rawValue) of \(source.subject)"
        guard source.operand.isCollection else {
            throw .typeMismatch(subject: subject, expected: "a to-many key path or an array", got: Self.describe(source.type, source.operand))
        }
        switch function {
        case .distinctUnionOfObjects, .unionOfObjects, .distinctUnionOfArrays, .unionOfArrays, .distinctUnionOfSets:
            return Typed(operand: .union(function, source.operand), type: source.type, subject: subject)
        case .count:
            return Typed(operand: .aggregate(.count, source.operand), type: .attribute(.int64), subject: subject)
        case .sum, .average:
            switch source.type {
            case .attribute(let type) where ![.int16, .int32, .int64, .double, .float, .decimal, .bool].contains(type):
                throw .typeMismatch(subject: subject, expected: "numbers", got: Self.describe(source.type, source.operand))
            case .object:
                throw .typeMismatch(subject: subject, expected: "numbers", got: Self.describe(source.type, source.operand))
            default:
                return Typed(operand: .aggregate(function, source.operand), type: .number, subject: subject)
            }
        case .min, .max:
            return Typed(operand: .aggregate(function, source.operand), type: source.type, subject: subject)
        }
    }

    /// Resolves a dotted key path from an entity to property indexes; `….length` after a
    /// string attribute is the string's length (as Core Data's SQL store reads it).
    mutating func keyPath(_ path: String, from base: PathBase, entity: EntityDescription,
                          subject: String? = nil) throws(PredicateError) -> Typed {
        if path.hasSuffix(".length") {
            let prefix = String(path.dropLast(".length".count))
            var probe = self
            if let string = try? probe.resolvedKeyPath(prefix, from: base, entity: entity, subject: subject),
               case .attribute(.string) = string.type, !string.operand.isCollection {
                self = probe
                let name = (subject ?? entity.name) + "." + path
                return Typed(operand: .function(.length, [string.operand], subject: name), type: .attribute(.int64), subject: name)
            }
        }
        return try resolvedKeyPath(path, from: base, entity: entity, subject: subject)
    }

    mutating func resolvedKeyPath(_ path: String, from base: PathBase, entity: EntityDescription,
                                  subject: String? = nil) throws(PredicateError) -> Typed {
        var indexes: [Int] = []
        var many = false
        var current: EntityDescription? = entity
        var type = OperandType.object(entity)
        var previous = ""
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            let key = String(component)
            guard let owner = current else {
                throw .typeMismatch(subject: "the key path \(path)", expected: "a relationship before '.\(key)'",
                                    got: "\(Self.describe(type, nil)) '\(previous)'")
            }
            guard let index = owner.index(ofProperty: key) else { throw .unknownKey(entity: owner.name, key: key) }
            indexes.append(index)
            switch owner.properties[index] {
            case .attribute(let attribute):
                type = .attribute(attribute.type)
                current = nil
            case .relationship(let relationship):
                if relationship.isToMany { many = true }
                current = owner.destination(ofPropertyAt: index)
                type = current.map(OperandType.object) ?? .unknown
            }
            previous = key
        }
        let name = (subject ?? entity.name) + "." + path
        if base.isRecord, indexes.count == 1, !many {
            return Typed(operand: .attribute(indexes[0]), type: type, subject: name)
        }
        followsRelationships = followsRelationships || indexes.count > 1 || !base.isRecord
        return Typed(operand: .path(base, indexes, many: many), type: type, subject: name)
    }

    static func describe(_ type: OperandType, _ operand: Operand?) -> String {
        if case .constant(let value)? = operand { return "\(value.kindName) \(value.formatLiteral)" }
        switch type {
        case .attribute(let t): return "the \(t) attribute"
        case .object(let entity): return "objects of \(entity.name)"
        case .number: return "a number"
        case .unknown: return "a value"
        }
    }

    // MARK: - Type checks

    /// Checks that the two sides of a comparison can meet, converting constants where a
    /// lossless reading exists (an ISO 8601 string compared with a date attribute).
    func check(_ left: inout Typed, _ op: Comparison.Operator, _ right: inout Typed,
               _ modifier: Comparison.Modifier) throws(PredicateError) {
        switch op {
        case .beginsWith, .endsWith, .like, .matches, .utiConformsTo, .utiEquals:
            try requireString(left, op)
            try convert(&right, to: .attribute(.string), subject: op.rawValue)
        case .contains:
            if left.operand.isCollection, modifier == .direct {
                try convert(&right, to: left.type, subject: left.subject)
            } else {
                try requireString(left, op)
                try convert(&right, to: .attribute(.string), subject: op.rawValue)
            }
        case .in:
            if right.operand.isCollection {
                try convert(&right, to: left.type, subject: left.subject)
                try convert(&left, to: right.type, subject: right.subject)
            } else {
                try requireString(right, op)
                try requireString(left, op)
            }
        default:
            try convert(&right, to: left.type, subject: left.subject)
            try convert(&left, to: right.type, subject: right.subject)
        }
    }

    func requireString(_ typed: Typed, _ op: Comparison.Operator) throws(PredicateError) {
        switch (typed.type, typed.operand) {
        case (_, .constant(.string)), (_, .constant(.null)), (.attribute(.string), _): return
        case (_, .constant), (.attribute, _), (.object, _), (.number, _):
            throw .typeMismatch(subject: "\(op.rawValue) on \(typed.subject)", expected: "strings",
                                got: Self.describe(typed.type, typed.operand))
        default: return
        }
    }

    /// Converts the constants of `typed` (one, or a list) to values `type` compares with.
    func convert(_ typed: inout Typed, to type: OperandType, subject: String) throws(PredicateError) {
        switch typed.operand {
        case .constant(.objects): return
        case .constant(let value):
            typed.operand = .constant(try Self.convert(value, to: type, subject: subject))
        case .list(let elements):
            var converted: [Operand] = []
            for element in elements {
                if case .constant(let value) = element {
                    converted.append(.constant(try Self.convert(value, to: type, subject: subject)))
                } else {
                    converted.append(element)
                }
            }
            typed.operand = .list(converted)
        default: return
        }
    }

    static func convert(_ value: Value, to type: OperandType, subject: String) throws(PredicateError) -> Value {
        if value.isNull { return value }
        func mismatch(_ expected: String) -> PredicateError {
            .typeMismatch(subject: subject, expected: expected, got: "\(value.kindName) \(value.formatLiteral)")
        }
        switch type {
        case .unknown: return value
        case .number:
            guard ValueComparison.isNumber(value) else { throw mismatch("numbers") }
            return value
        case .object(let entity):
            guard case .object = value else { throw mismatch("objects of \(entity.name)") }
            return value
        case .attribute(let attributeType):
            switch attributeType {
            case .int16, .int32, .int64, .double, .float, .decimal, .bool:
                guard ValueComparison.isNumber(value) else { throw mismatch("numbers") }
                return value
            case .string:
                guard case .string = value else { throw mismatch("strings") }
                return value
            case .date, .uuid, .uri, .binary:
                if case .string(let text) = value, attributeType != .binary {
                    guard let parsed = Value.parse(text: text, as: attributeType) else {
                        throw mismatch(attributeType == .date ? "dates (or ISO 8601 strings)" : "\(attributeType) values")
                    }
                    return parsed
                }
                guard value.isStored(as: attributeType) else { throw mismatch("\(attributeType) values") }
                return value
            }
        }
    }
}
