import Foundation
import GraphCore
import PostgresNIO

extension PostgresStore {
    /// The objects with these IDs and the number of the last commit they may hold: one statement
    /// per table, each row with its to-many relationships as arrays and the history's last number,
    /// all read in the statement's one snapshot (a server's cache misses: what it read holds no
    /// commit after `through`, and every commit up to it). IDs with no row are left out.
    func committedSnapshotsThrough(of ids: [ObjectID]) throws -> (snapshots: [ObjectSnapshot], through: Int64) {
        var found = ObjectsFound()
        for read in try objectReads(of: ids) { try found.add(try session.runPrepared(read.statement), of: read, in: self) }
        if found.latestNeeded { found.add(latest: try CommitHistory.latest(session: session)) }
        return found.result
    }

    /// What the statements of ``objectReads(of:)`` found, gathered as each is answered.
    struct ObjectsFound {
        private(set) var snapshots: [ObjectSnapshot] = []
        private var through: Int64 = 0
        private var answered = 0
        private var withoutRows = 0

        /// Whether the history's last commit must be read after the statements
        /// (``add(latest:)``): one returned no row to read it from, or none ran.
        var latestNeeded: Bool { answered == 0 || withoutRows > 0 }

        /// The objects and the last commit they may hold.
        var result: (snapshots: [ObjectSnapshot], through: Int64) { (snapshots, through) }

        /// The rows `read`'s statement returned.
        mutating func add(_ rows: [PostgresRow], of read: ObjectRead, in store: PostgresStore) throws {
            answered += 1
            if let latest = try read.commit(in: rows) { through = max(through, latest) } else { withoutRows += 1 }
            snapshots += try store.readRows(rows, root: read.root, toMany: read.toMany)
        }

        /// The history's last commit, read after the statements.
        mutating func add(latest: Int64) {
            through = max(through, latest)
        }
    }

    /// One statement of ``objectReads(of:)``: the rows of one table for some of the IDs, and where
    /// its rows hold their to-many relationships and the last commit.
    struct ObjectRead {
        var statement: SQLStatement
        var root: String
        var toMany: [String: Int]
        var commitColumn: Int

        /// The last commit the statement's snapshot held, from its first row; nil without a row.
        func commit(in rows: [PostgresRow]) throws -> Int64? {
            guard let row = rows.first else { return nil }
            return try ColumnReader.integer(row.makeRandomAccess()[commitColumn], what: "max(seq)")
        }
    }

    /// The statements that read the objects with these IDs: one per table, per
    /// ``objectsPerRead`` IDs. Temporary IDs and IDs of no table are left out.
    func objectReads(of ids: [ObjectID]) throws -> [ObjectRead] {
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        var references: [String: [Int64]] = [:]
        for id in ids {
            guard case .int(let reference) = id.referenceObject, !id.isTemporary else { continue }
            references[TableLayout.root(of: id.entity).name, default: []].append(reference)
        }
        var reads: [ObjectRead] = []
        for (root, all) in references.sorted(by: { $0.key < $1.key }) {
            guard let rootEntity = model.entity(named: root) else { continue }
            let made = try objectReadText(root: rootEntity)
            for start in stride(from: 0, to: all.count, by: Self.objectsPerRead) {
                var statement = SQLStatement(made.text)
                _ = statement.parameter(Array(all[start..<min(start + Self.objectsPerRead, all.count)]))
                statement.knownPreparedKey = made.key
                reads.append(ObjectRead(statement: statement, root: root, toMany: made.toMany, commitColumn: made.commitColumn))
            }
        }
        return reads
    }

    /// The text of the statement that reads rows of one table by ID, and the key it is prepared
    /// under on a connection: the same for every read of the table's misses. Made once per table:
    /// joining its kilobyte of text (the select list with the to-many relationships and the last
    /// commit) and hashing it for its key again for each read of misses took more of the
    /// server's time than reading the rows it returned (`docs/SCALING.md`).
    struct ObjectReadText {
        let text: String
        let key: PreparedKey
        let toMany: [String: Int]
        let commitColumn: Int
    }

    private func objectReadText(root: EntityDescription) throws -> ObjectReadText {
        if let made = objectReadTexts[root.name] { return made }
        let (objectList, positions, next) = try selectListWithToMany(root: root)
        var statement = SQLStatement()
        let references = statement.parameter([Int64]())  // the IDs' references, one array
        statement.text = "SELECT \(objectList), \(CommitHistory.latestExpression) FROM \(TableLayout.quoted(root.name)) t "
            + "WHERE t.\"_id\" = ANY(\(references))"
        let made = ObjectReadText(text: statement.text, key: statement.preparedKey, toMany: positions, commitColumn: next)
        objectReadTexts[root.name] = made
        return made
    }
}
