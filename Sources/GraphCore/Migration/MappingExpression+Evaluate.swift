import Foundation

extension MappingExpression {
    /// The expression's value on a source object, converted to `type`.
    ///
    /// - Parameters:
    ///   - node: The source object (`$source`).
    ///   - lookup: The source object of a reference, to follow `$source.owner.name`.
    /// - Throws: a reason, naming the expression, when a function fails on the values or the
    ///   result does not convert exactly to `type`.
    func value(on node: ObjectSnapshot, as type: AttributeType,
               lookup: (ReferenceObject) -> ObjectSnapshot?) throws(MappingExpression.Refusal) -> Value {
        let result: Value
        do {
            result = try Self.evaluate(expression, on: node, subject: text, lookup: lookup)
        } catch {
            throw Refusal("\(text) cannot be computed: \(error)")
        }
        if let converted = result.converted(to: type) { return converted }
        if case .double(let d) = result, let i = Int64(exactly: d), let converted = Value.int(i).converted(to: type) {
            return converted
        }
        throw Refusal("\(text) gives \(result), which is not \(type == .int16 || type == .int32 || type == .int64 ? "an" : "a") \(type) value")
    }

    private static func evaluate(_ expression: Expression, on node: ObjectSnapshot, subject: String,
                                 lookup: (ReferenceObject) -> ObjectSnapshot?) throws(PredicateError) -> Value {
        switch expression {
        case .constant(let value):
            return value
        case .path(.variable("source"), let path):
            return follow(path, from: node, lookup: lookup)
        case .function(let function, let arguments):
            var values: [Value] = []
            for argument in arguments { values.append(try evaluate(argument, on: node, subject: subject, lookup: lookup)) }
            if function.takesCollection {
                let elements: [Value]
                switch values.first ?? .null {
                case .null: elements = []
                case .objects(let ids): elements = ids.map(Value.object)
                case let single: elements = [single]
                }
                return try FunctionEvaluation.collection(function, elements, subject: subject).first ?? .null
            }
            return try FunctionEvaluation.scalar(function, values, subject: subject)
        case .cast(let inner, let type):
            return try FunctionEvaluation.cast(try evaluate(inner, on: node, subject: subject, lookup: lookup), to: type, subject: subject)
        default:
            // Refused when the mapping model was read (``unsupported(_:source:model:)``).
            throw PredicateError.unsupported("\(expression) in a mapping", offset: 0)
        }
    }

    /// The value at `path` from a source object, through to-one relationships; nil past a nil.
    private static func follow(_ path: String, from node: ObjectSnapshot, lookup: (ReferenceObject) -> ObjectSnapshot?) -> Value {
        var current = node
        let keys = path.split(separator: ".")
        for (position, key) in keys.enumerated() {
            guard let index = current.objectID.entity.index(ofProperty: String(key)), current.values.indices.contains(index) else {
                return .null
            }
            let value = current.values[index]
            if position == keys.count - 1 { return value }
            guard case .object(let target) = value, let next = lookup(target.referenceObject) else { return .null }
            current = next
        }
        return .null
    }
}
