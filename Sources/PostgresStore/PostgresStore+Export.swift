import Foundation
import GraphCore
import PostgresNIO

/// The whole database read at one instant (`docserver copy` to a JSON store, `docserver check`
/// on a database): every object with its version and relationships, and what numbers commits
/// and references, while servers may go on saving.
extension PostgresStore {
    /// What ``readEverything(progress:)`` read, all as of one instant.
    public struct Contents: Sendable {
        /// The database's store identifier (the store UUID its object IDs name).
        public var storeIdentifier: String
        /// Every object, table by table in the model's order, each table by reference.
        public var objects: [ObjectSnapshot]
        /// The number of the last commit (0 before the first).
        public var lastCommit: Int64
        /// The reference sequence's last value handed out (0 before the first).
        public var lastReference: Int64
        /// The history's numbering: its first and last `seq` and how many rows it holds.
        public var history: (first: Int64, last: Int64, rows: Int64)
    }

    /// Objects read by one statement of ``readEverything(progress:)``.
    static let objectsPerExportRead = 10_000

    /// Reads every object of the database, and the numbers of its last commit and last
    /// reference, in one `REPEATABLE READ READ ONLY` transaction: what a copy or a check sees
    /// is the database at one instant, whatever servers save meanwhile. Each table is read in
    /// pages of ``objectsPerExportRead`` objects by reference (keyset pages: no `OFFSET`),
    /// their to-many relationships with them; `progress` is called with the number read so far.
    ///
    /// - Throws: ``PostgresStoreError`` (a lost connection, a statement refused or too slow,
    ///   a row that does not fit the model).
    public func readEverything(progress: (Int) -> Void = { _ in }) throws -> Contents {
        try session.transaction {
            try session.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            var objects: [ObjectSnapshot] = []
            for root in try layout.roots {
                var after = Int64.min
                while true {
                    var statement = SQLStatement()
                    statement.text = "SELECT \(try selectList(root: root)) FROM \(TableLayout.quoted(root)) t "
                        + "WHERE t.\"_id\" > \(statement.parameter(after)) ORDER BY t.\"_id\" "
                        + "LIMIT \(statement.parameter(Int64(Self.objectsPerExportRead)))"
                    let page = try readRows(try session.run(statement.text, statement.binds), root: root)
                    guard let last = page.last, case .int(let reference) = last.objectID.referenceObject else { break }
                    objects += page
                    after = reference
                    progress(objects.count)
                    if page.count < Self.objectsPerExportRead { break }
                }
            }
            return Contents(storeIdentifier: try storeIdentifierInDatabase(), objects: objects,
                            lastCommit: try CommitHistory.latest(session: session),
                            lastReference: try lastReferenceHandedOut(), history: try historyNumbering())
        }
    }

    /// The first `seq` after `first` that does not follow the one before it (a hole in the
    /// history's numbering), or nil when the numbers from the first to the last are all there.
    public func firstHistoryGap() throws -> (after: Int64, next: Int64)? {
        let rows = try session.run("""
            SELECT prev, seq FROM (SELECT seq, lag(seq) OVER (ORDER BY seq) AS prev FROM "\(CommitHistory.table)") numbered \
            WHERE prev IS NOT NULL AND seq <> prev + 1 ORDER BY seq LIMIT 1
            """)
        guard let row = rows.first else { return nil }
        let cells = row.makeRandomAccess()
        guard let before = try ColumnReader.integer(cells[0], what: "prev"), let next = try ColumnReader.integer(cells[1], what: "seq") else {
            return nil
        }
        return (before, next)
    }

    private func storeIdentifierInDatabase() throws -> String {
        let rows = try session.run("SELECT value FROM \(TableLayout.quoted(TableLayout.metadataTable)) WHERE key = 'storeIdentifier'")
        guard let row = rows.first, let identifier = try ColumnReader.text(row.makeRandomAccess()[0], what: "storeIdentifier") else {
            throw PostgresStoreError.damagedSchema("\(TableLayout.metadataTable) has no storeIdentifier")
        }
        return identifier
    }

    private func lastReferenceHandedOut() throws -> Int64 {
        let rows = try session.run("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM \(TableLayout.quoted(TableLayout.referenceSequence))")
        guard let row = rows.first else { return 0 }
        return try ColumnReader.integer(row.makeRandomAccess()[0], what: "last_value") ?? 0
    }

    private func historyNumbering() throws -> (first: Int64, last: Int64, rows: Int64) {
        let rows = try session.run("SELECT coalesce(min(seq), 0), coalesce(max(seq), 0), count(*) FROM \"\(CommitHistory.table)\"")
        guard let row = rows.first else { return (0, 0, 0) }
        let cells = row.makeRandomAccess()
        return (try ColumnReader.integer(cells[0], what: "min(seq)") ?? 0, try ColumnReader.integer(cells[1], what: "max(seq)") ?? 0,
                try ColumnReader.integer(cells[2], what: "count(*)") ?? 0)
    }
}
