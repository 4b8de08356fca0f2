import GraphCore
import PostgresNIO

extension PostgresStore {
    /// The entity and string attribute of the fetches one ``EqualityRead`` answers together.
    struct EqualityReadKey: Hashable {
        let entityName: String
        let key: String
    }

    /// The statement that answers many fetches `key == value` of one entity at once: the values
    /// as one array, joined to the table by the condition the translator writes for one such
    /// fetch (``PredicateTranslator``: both sides in NFC, compared as `COLLATE "C"`, so that the
    /// index of the attribute serves each value), each row with the position of the value it
    /// matched, its to-many relationships and the last commit (as a server's one-statement fetch
    /// reads them). Under load one statement then answers the fetches of many requests, where
    /// each sent its own (postgres-nio's sending and reading of each statement was about 30 % of
    /// the server's CPU per fetch, `docs/SCALING.md`).
    struct EqualityRead {
        var statement: SQLStatement
        var root: String
        var toMany: [String: Int]
        var commitColumn: Int
        /// The column of the value's position in `values` (from 1).
        var positionColumn: Int
    }

    /// The text of an ``EqualityRead`` of one entity and key, made once.
    struct EqualityReadText {
        let text: String
        let key: PreparedKey
        let root: String
        let toMany: [String: Int]
        let commitColumn: Int
        /// The entity's kinds, when the table holds others too (the second parameter).
        let kinds: [String]?
    }

    /// The read that answers the fetches `key == value` of `entityName` (and its subentities)
    /// for each of `values`; nil when `key` is not a stored string attribute of a known entity
    /// (each fetch then goes alone, and says what is wrong with it).
    func equalityRead(entityName: String, key: String, values: [String]) throws -> EqualityRead? {
        guard let made = try equalityReadText(EqualityReadKey(entityName: entityName, key: key)) else { return nil }
        var statement = SQLStatement(made.text)
        _ = statement.parameter(values)
        if let kinds = made.kinds { _ = statement.parameter(kinds) }
        statement.knownPreparedKey = made.key
        return EqualityRead(statement: statement, root: made.root, toMany: made.toMany, commitColumn: made.commitColumn,
                            positionColumn: made.commitColumn + 1)
    }

    private func equalityReadText(_ readKey: EqualityReadKey) throws -> EqualityReadText? {
        if let made = equalityReadTexts[readKey] { return made }
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        var made: EqualityReadText?
        if let entity = model.entity(named: readKey.entityName),
           case .attribute(let attribute)? = entity.property(named: readKey.key), attribute.type == .string, !attribute.isTransient {
            let layout = try layout
            let root = TableLayout.root(of: entity)
            let selected = try selectListWithToMany(root: root)
            let kinds = layout.kinds(of: entity, includingSubentities: true)
            let narrowed = kinds.count != layout.kinds(of: root, includingSubentities: true).count
            var statement = SQLStatement()
            let values = statement.parameter([String]())
            let column = "t.\(TableLayout.quoted(attribute.name))"
            var text = "SELECT \(selected.list), \(CommitHistory.latestExpression), k.i "
                + "FROM unnest(\(values)::text[]) WITH ORDINALITY k(v, i) JOIN \(TableLayout.quoted(root.name)) t "
                + "ON \(TableLayout.stringKey(column)) = normalize(k.v, NFC) AND \(column) IS NOT NULL"
            if narrowed { text += " AND t.\"_entity\" = ANY(\(statement.parameter(kinds)))" }
            statement.text = text
            made = EqualityReadText(text: text, key: statement.preparedKey, root: root.name, toMany: selected.toMany,
                                    commitColumn: selected.width, kinds: narrowed ? kinds : nil)
        }
        equalityReadTexts[readKey] = made
        return made
    }

    /// The objects `read`'s rows hold for each of its `count` values, in the rows' order, and the
    /// last commit its snapshot held (nil without a row).
    func equalityResult(of read: EqualityRead, rows: [PostgresRow], count: Int) throws -> (objects: [[ObjectSnapshot]], through: Int64?) {
        var objects = [[ObjectSnapshot]](repeating: [], count: count)
        guard let first = rows.first else { return (objects, nil) }
        let through = try ColumnReader.integer(first.makeRandomAccess()[read.commitColumn], what: "max(seq)") ?? 0
        // With the to-many relationships in the rows, one object for each row, in order.
        let snapshots = try readRows(rows, root: read.root, toMany: read.toMany)
        for (row, snapshot) in zip(rows, snapshots) {
            guard let position = try ColumnReader.integer(row.makeRandomAccess()[read.positionColumn], what: "position"),
                  position >= 1, position <= Int64(count) else {
                throw PostgresStoreError.unreadableValue(entity: read.root, key: "position", reason: "a row matched no value asked for")
            }
            objects[Int(position) - 1].append(snapshot)
        }
        return (objects, through)
    }
}
