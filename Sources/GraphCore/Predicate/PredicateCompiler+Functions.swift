import Foundation

// Functions, TERNARY, CAST of non-literals and indexes: arguments checked where their type
// is known, functions of constants folded (except `now()` and `random`).

extension PredicateCompiler {
    mutating func function(_ function: BuiltinFunction, _ arguments: [Expression], _ whole: Expression,
                           _ scope: Scope) throws(PredicateError) -> Typed {
        let subject = whole.description
        guard arguments.count == function.arity else {
            throw .typeMismatch(subject: function.rawValue, expected: "\(function.arity) arguments", got: "\(arguments.count)")
        }
        var operands: [Operand] = []
        var types: [OperandType] = []
        for argument in arguments {
            let typed = try expression(argument, scope)
            if !function.takesCollection, typed.operand.isCollection {
                throw .typeMismatch(subject: "\(function.rawValue) in \(subject.prefix(100))", expected: "one value",
                                    got: "the collection \(typed.subject.prefix(100))")
            }
            try Self.checkArgument(function, typed, subject: subject)
            operands.append(typed.operand)
            types.append(typed.type)
        }
        let type: OperandType
        switch function {
        case .add, .subtract: type = .unknown  // a date plus seconds is a date
        case .uppercase, .lowercase: type = .attribute(.string)
        case .now: type = .attribute(.date)
        case .min, .max, .mode, .noIndex: type = types.first ?? .unknown
        default: type = .number
        }
        let operand = Operand.function(function, operands, subject: subject)
        // Fold a function of constants once, here.
        if function != .now, function != .random, function != .randomBelow {
            if function.takesCollection,
               let constants = Self.constants(operands[0]) ?? Self.constant(operands[0]).map({ $0.isNull ? [] : [$0] }) {
                let values = try FunctionEvaluation.collection(function, constants, subject: subject)
                let folded: Operand = function == .mode ? .list(values.map(Operand.constant)) : .constant(values.first ?? .null)
                return Typed(operand: folded, type: type, subject: subject)
            }
            if !function.takesCollection {
                var values: [Value] = []
                for operand in operands {
                    guard let value = Self.constant(operand) else { break }
                    values.append(value)
                }
                if values.count == operands.count {
                    return Typed(operand: .constant(try FunctionEvaluation.scalar(function, values, subject: subject)), type: type, subject: subject)
                }
            }
        }
        if case .object = types.first, function.takesCollection || function == .noIndex {
            followsRelationships = true
        }
        return Typed(operand: operand, type: type, subject: subject)
    }

    static func constant(_ operand: Operand) -> Value? {
        if case .constant(let value) = operand, !operand.isCollection { return value }
        return nil
    }

    /// Refuses an argument whose type is known not to fit: a string attribute to `sqrt:`.
    static func checkArgument(_ function: BuiltinFunction, _ typed: Typed, subject: String) throws(PredicateError) {
        let wantsString = function == .uppercase || function == .lowercase || function == .length
        let wantsNumber: Bool
        switch function {
        case .multiply, .divide, .modulus, .power, .sqrt, .log, .ln, .exp, .floor, .ceiling, .abs, .trunc,
             .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift, .onesComplement, .randomBelow:
            wantsNumber = true
        default:
            wantsNumber = false
        }
        let wantsNumberOrDate = function == .add || function == .subtract
        guard wantsString || wantsNumber || wantsNumberOrDate else { return }
        let isString: Bool?
        switch (typed.type, typed.operand) {
        case (_, .constant(.null)): return
        case (_, .constant(.string)), (.attribute(.string), _): isString = true
        case (_, .constant(let value)): isString = ValueComparison.isNumber(value) ? false : nil
        case (.attribute(let t), _): isString = [.int16, .int32, .int64, .double, .float, .decimal, .bool].contains(t) ? false : nil
        case (.number, _): isString = false
        case (.object, _): isString = nil
        case (.unknown, _): return
        }
        let fits = wantsString ? isString == true : wantsNumberOrDate ? isString != true : isString == false
        if !fits {
            let expected = wantsString ? "strings" : wantsNumberOrDate ? "numbers or dates" : "numbers"
            throw .typeMismatch(subject: "\(function.rawValue) in \(subject.prefix(100))", expected: expected,
                                got: describe(typed.type, typed.operand))
        }
    }

    mutating func ternary(_ condition: Predicate, _ whenTrue: Expression, _ whenFalse: Expression, _ whole: Expression,
                          _ scope: Scope) throws(PredicateError) -> Typed {
        let node = try node(condition, scope)
        let a = try expression(whenTrue, scope)
        let b = try expression(whenFalse, scope)
        for side in [a, b] where side.operand.isCollection {
            throw .typeMismatch(subject: "TERNARY", expected: "one value on each side", got: "the collection \(side.subject.prefix(100))")
        }
        if case .constant(let holds) = node { return holds ? a : b }
        let type: OperandType
        if case .constant = a.operand { type = b.type } else { type = a.type }
        return Typed(operand: .ternary(node, a.operand, b.operand), type: type, subject: whole.description)
    }

    mutating func cast(_ inner: Expression, _ type: String, _ whole: Expression, _ scope: Scope) throws(PredicateError) -> Typed {
        let source = try expression(inner, scope)
        let subject = whole.description
        if source.operand.isCollection {
            throw .typeMismatch(subject: "CAST", expected: "one value", got: "the collection \(source.subject.prefix(100))")
        }
        let resultType: OperandType = type == "NSNumber" ? .number : type == "NSDate" ? .attribute(.date) : .attribute(.string)
        if let value = Self.constant(source.operand) {
            return Typed(operand: .constant(try FunctionEvaluation.cast(value, to: type, subject: subject)), type: resultType, subject: subject)
        }
        return Typed(operand: .cast(source.operand, type, subject: subject), type: resultType, subject: subject)
    }

    mutating func index(_ collection: Expression, _ index: IndexSubscript, _ whole: Expression,
                        _ scope: Scope) throws(PredicateError) -> Typed {
        let source = try expression(collection, scope)
        let compiled: IndexOperand
        switch index {
        case .first: compiled = .first
        case .last: compiled = .last
        case .size: compiled = .size
        case .position(let position):
            let typed = try expression(position, scope)
            if typed.operand.isCollection {
                throw .typeMismatch(subject: whole.description, expected: "an integer index", got: "the collection \(typed.subject.prefix(100))")
            }
            if case .constant(let value) = typed.operand, !value.isNull {
                guard case .int = value else {
                    throw .typeMismatch(subject: whole.description, expected: "an integer index, FIRST, LAST or SIZE", got: Self.describe(typed.type, typed.operand))
                }
            }
            compiled = .position(typed.operand)
        }
        var indexable = source.operand.isCollection
        if case .object = source.type { indexable = true }
        if !indexable {
            throw .typeMismatch(subject: whole.description, expected: "a collection before '['", got: Self.describe(source.type, source.operand))
        }
        let type: OperandType = index == .size ? .attribute(.int64) : source.type
        return Typed(operand: .index(source.operand, compiled), type: type, subject: whole.description)
    }
}
