import Foundation

// Functions, TERNARY, CAST, indexes and union collection operators, evaluated on a record.

extension PredicateEvaluator {
    /// The value of a function, ternary, cast or index operand.
    func computed(_ operand: Operand, _ record: Record, _ slots: inout [Value]) throws -> Value {
        switch operand {
        case .function(let function, let arguments, let subject):
            if function.takesCollection {
                let elements = try elements(of: arguments[0], record, &slots)
                return try FunctionEvaluation.collection(function, elements, subject: subject).first ?? .null
            }
            var values: [Value] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(try value(argument, record, &slots)) }
            return try FunctionEvaluation.scalar(function, values, subject: subject)
        case .ternary(let condition, let whenTrue, let whenFalse):
            return try value(try evaluate(condition, record, &slots) ? whenTrue : whenFalse, record, &slots)
        case .cast(let inner, let type, let subject):
            return try FunctionEvaluation.cast(try value(inner, record, &slots), to: type, subject: subject)
        case .index(let collection, let index):
            let elements = try elements(of: collection, record, &slots)
            switch index {
            case .first: return elements.first ?? .null
            case .last: return elements.last ?? .null
            case .size: return .int(Int64(elements.count))
            case .position(let position):
                guard case .int(let i) = try value(position, record, &slots), let at = Int(exactly: i),
                      elements.indices.contains(at) else { return .null }
                return elements[at]
            }
        default:
            return try value(operand, record, &slots)
        }
    }

    /// The elements of a union or of `mode:`, to `body` until it returns true.
    func forEachComputed(_ operand: Operand, _ record: Record, _ slots: inout [Value],
                         _ body: (Value, inout [Value]) throws -> Bool) throws {
        let values: [Value]
        switch operand {
        case .union(let function, let collection):
            let all = try elements(of: collection, record, &slots)
            if function.isDistinct {
                var seen = Set<Value>()
                values = all.filter { seen.insert($0).inserted }
            } else {
                values = all
            }
        case .function(let function, let arguments, let subject):
            values = try FunctionEvaluation.collection(function, try elements(of: arguments[0], record, &slots), subject: subject)
        default:
            values = [try value(operand, record, &slots)]
        }
        for element in values where try body(element, &slots) { return }
    }

    /// The elements of a collection operand (one for a single value; none for nil).
    func elements(of operand: Operand, _ record: Record, _ slots: inout [Value]) throws -> [Value] {
        var result: [Value] = []
        if operand.isCollection {
            try forEach(operand, record, &slots) { element, _ in
                result.append(element)
                return false
            }
        } else {
            switch try value(operand, record, &slots) {
            case .null: break
            case .objects(let ids): result = ids.map(Value.object)
            case let single: result = [single]
            }
        }
        return result
    }
}
