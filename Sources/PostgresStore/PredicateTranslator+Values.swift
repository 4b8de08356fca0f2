import Foundation
import GraphCore

extension PredicateTranslator {
    /// `operand op value` as SQL, or nil when SQL cannot say it (GraphCore then judges it).
    /// `slot` numbers the constant `value` (``PredicateShape``): the parameters bound from it say so.
    func test(_ target: Operand, _ op: Comparison.Operator, _ value: Value, slot: Int, options: Comparison.Options,
              into statement: inout SQLStatement) -> SQLCondition? {
        func from(_ form: BindSource.BindForm) -> BindSource { .constant(slot: slot, form) }
        let e = target.sql
        if value.isNull {
            switch op {
            case .equal: return SQLCondition(sql: "\(e) IS NULL", isExact: true)
            case .notEqual: return SQLCondition(sql: "\(e) IS NOT NULL", isExact: true)
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .beginsWith, .endsWith, .contains, .like:
                return SQLCondition(sql: "FALSE", isExact: true)
            default: return nil
            }
        }
        guard let type = target.type else { return object(e, op, value, slot: slot, into: &statement) }
        switch (type, value) {
        case (.int16, .int(let c)), (.int32, .int(let c)), (.int64, .int(let c)):
            return ordered(e, op, statement.parameter(c, from: from(.int)))
        case (.double, .double(let c)), (.float, .double(let c)):
            guard !c.isNaN else { return nil }
            return withoutNaN(e, op, statement.parameter(c, from: from(.double)))
        case (.double, .int(let c)), (.float, .int(let c)):
            guard c.magnitude <= 1 << 53 else { return nil }
            return withoutNaN(e, op, statement.parameter(Double(c), from: from(.intAsDouble)))
        case (.date, .date(let d)):
            guard !d.timeIntervalSinceReferenceDate.isNaN else { return nil }
            return ordered(e, op, statement.parameter(d.timeIntervalSinceReferenceDate, from: from(.date)))
        case (.bool, .bool(let b)):
            guard op == .equal || op == .notEqual else { return nil }
            return ordered(e, op, statement.parameter(b, from: from(.bool)))
        case (.uuid, .uuid(let u)):
            guard op == .equal || op == .notEqual else { return nil }
            return ordered(e, op, statement.parameter(u, from: from(.uuid)))
        case (.string, .string(let s)):
            return string(e, op, s, slot: slot, options: options, into: &statement)
        default:
            return nil
        }
    }

    /// `==`, `!=` and the orderings of values SQL compares as GraphCore does; nil never matches.
    /// Conditions are never NULL (`… AND e IS NOT NULL`: FALSE for a NULL `e`), and keep the
    /// comparison bare so that an index of `e` serves it.
    private func ordered(_ e: String, _ op: Comparison.Operator, _ parameter: String) -> SQLCondition? {
        switch op {
        case .equal, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            guard let sql = Self.sqlOperator(op) else { return nil }
            return SQLCondition(sql: "\(e) \(sql) \(parameter) AND \(e) IS NOT NULL", isExact: true)
        case .notEqual:
            return SQLCondition(sql: "\(e) IS DISTINCT FROM \(parameter)", isExact: true)
        default:
            return nil
        }
    }

    /// As ``ordered(_:_:_:)`` for doubles: NaN equals nothing and is in no order (PostgreSQL
    /// puts it above every number).
    private func withoutNaN(_ e: String, _ op: Comparison.Operator, _ parameter: String) -> SQLCondition? {
        switch op {
        case .equal, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            guard let sql = Self.sqlOperator(op) else { return nil }
            return SQLCondition(sql: "\(e) <> 'NaN'::float8 AND \(e) \(sql) \(parameter) AND \(e) IS NOT NULL", isExact: true)
        case .notEqual:
            return SQLCondition(sql: "NOT (\(e) <> 'NaN'::float8 AND \(e) = \(parameter) AND \(e) IS NOT NULL)", isExact: true)
        default:
            return nil
        }
    }

    /// A to-one relationship compared with an object of this store.
    private func object(_ e: String, _ op: Comparison.Operator, _ value: Value, slot: Int, into statement: inout SQLStatement) -> SQLCondition? {
        guard case .object(let id) = value, op == .equal || op == .notEqual else { return nil }
        guard !id.isTemporary, id.storeIdentifier == storeIdentifier, case .int(let reference) = id.referenceObject else {
            // An object of no store or another store is no object of this table.
            return SQLCondition(sql: op == .equal ? "FALSE" : "TRUE", isExact: true)
        }
        return ordered(e, op, statement.parameter(reference, from: .constant(slot: slot, .objectReference)))
    }

    /// Only the exact comparisons say where their parameter comes from (the others bind values made
    /// from the constant, and their plans are made anew for each request).
    private func string(_ e: String, _ op: Comparison.Operator, _ s: String, slot: Int, options: Comparison.Options,
                        into statement: inout SQLStatement) -> SQLCondition? {
        if options.isEmpty, let sql = Self.sqlOperator(op) {
            // Swift compares strings as canonically equivalent Unicode, in code point order.
            // (`COLLATE "C"` for `==` too: the same answer, and a fetch index of the column serves both.)
            let parameter = "normalize(\(statement.parameter(s, from: .constant(slot: slot, .string))), NFC)"
            let subject = TableLayout.stringKey(e)
            if op == .notEqual { return SQLCondition(sql: "\(subject) IS DISTINCT FROM \(parameter)", isExact: true) }
            return SQLCondition(sql: "\(subject) \(sql) \(parameter) AND \(e) IS NOT NULL", isExact: true)
        }
        // The rest holds exactly for plain ASCII values (GraphCore compares their bytes); other
        // values pass, and GraphCore judges them.
        guard s.utf8.allSatisfy({ $0 > 0 && $0 < 0x80 && $0 != 0x0A && $0 != 0x0D }) else { return nil }
        let caseless = options.contains(.caseInsensitive)
        let constant = caseless ? String(decoding: s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self) : s
        let subject = caseless ? "lower(\(e) COLLATE \"C\")" : "(\(e) COLLATE \"C\")"
        let notPlain = "(\(e) ~ \(statement.parameter(Self.notPlainPattern)) AND \(e) IS NOT NULL)"
        let plain: String
        switch op {
        case .equal: plain = "\(subject) = \(statement.parameter(constant))"
        case .notEqual: return SQLCondition(sql: "\(e) IS NULL OR \(notPlain) OR \(subject) <> \(statement.parameter(constant))", isExact: false)
        case .beginsWith: plain = "starts_with(\(subject), \(statement.parameter(constant)))"
        case .endsWith:
            guard let length = Int32(exactly: constant.utf8.count) else { return nil }
            plain = "right(\(subject), \(statement.parameter(length))) = \(statement.parameter(constant))"
        case .contains: plain = "strpos(\(subject), \(statement.parameter(constant))) > 0"
        case .like:
            guard !constant.contains("\\") else { return nil }
            var pattern = ""
            for character in constant {
                switch character {
                case "*": pattern += "%"
                case "?": pattern += "_"
                case "%", "_": pattern += "\\" + String(character)
                default: pattern.append(character)
                }
            }
            plain = "\(subject) LIKE \(statement.parameter(pattern))"
        default: return nil
        }
        return SQLCondition(sql: "(\(plain) AND \(e) IS NOT NULL) OR \(notPlain)", isExact: false)
    }

    static func sqlOperator(_ op: Comparison.Operator) -> String? {
        switch op {
        case .equal: return "="
        case .notEqual: return "<>"
        case .lessThan: return "<"
        case .lessThanOrEqual: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqual: return ">="
        default: return nil
        }
    }
}
