import Foundation
import GraphCore

/// A predicate turned into a SQL condition on a hierarchy's table.
///
/// The condition is never NULL, and every object the predicate matches satisfies it. When
/// ``isExact`` the converse holds too (SQL answers the predicate alone, so PostgreSQL may also
/// sort, page and count); otherwise GraphCore evaluates the whole predicate on the rows the
/// condition narrowed down.
struct SQLCondition {
    var sql: String
    var isExact: Bool

    static let always = SQLCondition(sql: "TRUE", isExact: false)
}

/// Translates what SQL can say of a predicate; the rest is left to GraphCore (a term that
/// cannot be translated narrows nothing, it is never dropped from the answer).
///
/// Exact translations: comparisons of integer, double, date, bool and UUID attributes with a
/// constant of their kind (NaN rules as GraphCore's), nil tests, plain string `==`, `!=`, `<`,
/// `<=`, `>`, `>=` and `IN` (strings compared as canonically equivalent Unicode, as Swift does:
/// through `normalize(…, NFC)` and code point order), to-one relationships compared with an
/// object, key paths across to-one relationships, `BETWEEN`, `IN` lists, `@count` of a to-many
/// relationship, `ANY`/`NONE`/`ALL` over a to-many relationship, `AND`/`OR`/`NOT`.
///
/// Narrowing translations (re-checked by GraphCore): `BEGINSWITH`, `ENDSWITH`, `CONTAINS`,
/// `LIKE`, and `[c]`/`[d]` comparisons with an ASCII constant. They hold exactly for values of
/// plain ASCII (no line breaks), where GraphCore compares bytes; any other value passes the
/// condition and is judged by GraphCore.
struct PredicateTranslator {
    let layout: TableLayout
    /// The store whose objects a to-one relationship may be compared with.
    let storeIdentifier: String
    /// The predicate's constants: the predicate translated is marked (``PredicateShape``), its
    /// constants read from here by their marker, and each parameter notes the constant it binds.
    let constants: [Value]
    /// Values that are not plain ASCII without line breaks: GraphCore judges these.
    static let notPlainPattern = "[^\\x01-\\x09\\x0B\\x0C\\x0E-\\x7F]"
    private var aliases = 0

    init(layout: TableLayout, storeIdentifier: String, constants: [Value]) {
        self.layout = layout
        self.storeIdentifier = storeIdentifier
        self.constants = constants
    }

    /// The constant a marker stands for, and its number.
    private func constant(_ expression: GraphCore.Expression) -> (value: Value, slot: Int)? {
        PredicateShape.constant(of: expression, in: constants)
    }

    /// The condition for a marked `predicate` (``PredicateShape``) on objects of `entity` in the table aliased `alias`.
    mutating func condition(_ predicate: GraphCore.Predicate, entity: EntityDescription, alias: String, into statement: inout SQLStatement) -> SQLCondition {
        translate(predicate, entity: entity, alias: alias, into: &statement) ?? .always
    }

    private mutating func translate(_ predicate: GraphCore.Predicate, entity: EntityDescription, alias: String, into statement: inout SQLStatement) -> SQLCondition? {
        switch predicate {
        case .constant(let value):
            return SQLCondition(sql: value ? "TRUE" : "FALSE", isExact: true)
        case .and(let parts):
            var sql: [String] = []
            var exact = true
            for part in parts {
                if let piece = translate(part, entity: entity, alias: alias, into: &statement) {
                    sql.append("(\(piece.sql))")
                    exact = exact && piece.isExact
                } else {
                    exact = false
                }
            }
            return SQLCondition(sql: sql.isEmpty ? "TRUE" : sql.joined(separator: " AND "), isExact: exact)
        case .or(let parts):
            var sql: [String] = []
            var exact = true
            for part in parts {
                guard let piece = translate(part, entity: entity, alias: alias, into: &statement) else { return nil }
                sql.append("(\(piece.sql))")
                exact = exact && piece.isExact
            }
            return SQLCondition(sql: sql.isEmpty ? "FALSE" : sql.joined(separator: " OR "), isExact: exact)
        case .not(let inner):
            guard let piece = translate(inner, entity: entity, alias: alias, into: &statement), piece.isExact else { return nil }
            return SQLCondition(sql: "NOT (\(piece.sql))", isExact: true)
        case .comparison(let comparison):
            return translate(comparison, entity: entity, alias: alias, into: &statement)
        }
    }

    // MARK: - Comparisons

    private mutating func translate(_ comparison: Comparison, entity: EntityDescription, alias: String, into statement: inout SQLStatement) -> SQLCondition? {
        if case .aggregate(.count, .keyPath(let name), nil) = comparison.left, comparison.modifier == .direct {
            return count(name, comparison, entity: entity, alias: alias, into: &statement)
        }
        guard case .keyPath(let path) = comparison.left else { return nil }
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let first = components.first, let property = entity.property(named: first) else { return nil }
        if case .relationship(let relationship) = property, relationship.isToMany {
            return anyOf(relationship, rest: Array(components.dropFirst()), comparison, entity: entity, alias: alias, into: &statement)
        }
        guard comparison.modifier == .direct, let target = operand(components, entity: entity, alias: alias) else { return nil }
        switch comparison.op {
        case .in:
            guard case .array(let items) = comparison.right else { return nil }
            if items.isEmpty { return SQLCondition(sql: "FALSE", isExact: true) }
            var pieces: [SQLCondition] = []
            for item in items {
                guard let (value, slot) = constant(item),
                      let piece = test(target, .equal, value, slot: slot, options: comparison.options, into: &statement) else { return nil }
                pieces.append(piece)
            }
            return SQLCondition(sql: pieces.map { "(\($0.sql))" }.joined(separator: " OR "), isExact: pieces.allSatisfy(\.isExact))
        case .between:
            guard case .array(let bounds) = comparison.right, bounds.count == 2,
                  let (low, lowSlot) = constant(bounds[0]), let (high, highSlot) = constant(bounds[1]),
                  let lower = test(target, .greaterThanOrEqual, low, slot: lowSlot, options: comparison.options, into: &statement),
                  let upper = test(target, .lessThanOrEqual, high, slot: highSlot, options: comparison.options, into: &statement)
            else { return nil }
            return SQLCondition(sql: "(\(lower.sql)) AND (\(upper.sql))", isExact: lower.isExact && upper.isExact)
        default:
            guard let (value, slot) = constant(comparison.right) else { return nil }
            return test(target, comparison.op, value, slot: slot, options: comparison.options, into: &statement)
        }
    }

    /// An attribute or to-one relationship at the end of a key path, as a SQL expression.
    struct Operand {
        let sql: String
        /// The attribute's type; nil for a to-one relationship.
        let type: AttributeType?
    }

    /// The SQL expression of a key path across to-one relationships (a scalar subquery per step).
    private mutating func operand(_ components: [String], entity: EntityDescription, alias: String) -> Operand? {
        guard let name = components.first, let property = entity.property(named: name) else { return nil }
        let column = "\(alias).\(TableLayout.quoted(name))"
        switch property {
        case .attribute(let attribute):
            guard components.count == 1, !attribute.isTransient else { return nil }
            return Operand(sql: column, type: attribute.type)
        case .relationship(let relationship):
            guard !relationship.isToMany, let destination = layout.model.entity(named: relationship.destination) else { return nil }
            if components.count == 1 { return Operand(sql: column, type: nil) }
            let next = nextAlias()
            guard let inner = operand(Array(components.dropFirst()), entity: destination, alias: next) else { return nil }
            return Operand(sql: "(SELECT \(inner.sql) FROM \(layout.table(of: destination)) \(next) WHERE \(next).\"_id\" = \(column))", type: inner.type)
        }
    }

    private mutating func nextAlias() -> String {
        aliases += 1
        return "x\(aliases)"
    }

    /// `ANY`, `NONE` or `ALL` over a to-many relationship (`ANY` is also what a direct
    /// comparison through a to-many relationship means).
    private mutating func anyOf(_ relationship: RelationshipDescription, rest: [String], _ comparison: Comparison,
                                entity: EntityDescription, alias: String, into statement: inout SQLStatement) -> SQLCondition? {
        guard !rest.isEmpty, comparison.modifier != .direct,
              let join = layout.joinTable(of: relationship.name, in: entity),
              let destination = layout.model.entity(named: relationship.destination) else { return nil }
        let joinAlias = nextAlias()
        let targetAlias = nextAlias()
        var inner = comparison
        inner.left = .keyPath(rest.joined(separator: "."))
        inner.modifier = .direct
        guard let piece = translate(inner, entity: destination, alias: targetAlias, into: &statement) else { return nil }
        let from = """
            SELECT 1 FROM \(TableLayout.quoted(join.name)) \(joinAlias) JOIN \(layout.table(of: destination)) \(targetAlias) \
            ON \(targetAlias)."_id" = \(joinAlias).target WHERE \(joinAlias).owner = \(alias)."_id"
            """
        switch comparison.modifier {
        case .any, .direct:
            return SQLCondition(sql: "EXISTS (\(from) AND (\(piece.sql)))", isExact: piece.isExact)
        case .none:
            guard piece.isExact else { return nil }
            return SQLCondition(sql: "NOT EXISTS (\(from) AND (\(piece.sql)))", isExact: true)
        case .all:
            guard piece.isExact else { return nil }
            return SQLCondition(sql: "NOT EXISTS (\(from) AND NOT (\(piece.sql)))", isExact: true)
        }
    }

    /// `relationship.@count` compared with an integer.
    private func count(_ name: String, _ comparison: Comparison, entity: EntityDescription, alias: String,
                       into statement: inout SQLStatement) -> SQLCondition? {
        guard case .relationship(let relationship)? = entity.property(named: name), relationship.isToMany,
              let join = layout.joinTable(of: name, in: entity),
              let (number, slot) = constant(comparison.right), case .int(let value) = number,
              let op = Self.sqlOperator(comparison.op) else { return nil }
        let counted = "(SELECT count(*) FROM \(TableLayout.quoted(join.name)) c WHERE c.owner = \(alias).\"_id\")"
        return SQLCondition(sql: "\(counted) \(op) \(statement.parameter(value, from: .constant(slot: slot, .int)))", isExact: true)
    }
}
