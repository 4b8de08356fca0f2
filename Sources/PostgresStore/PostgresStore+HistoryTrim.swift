import Foundation
import GraphCore

/// Keeping the history table bounded (`docserver compact` on a database): every save adds a
/// row to `_graph_history`, and nothing else removes one.
extension PostgresStore {
    /// What ``trimHistory(keeping:)`` did: the rows removed and the numbers the history holds now.
    public struct HistoryTrim: Sendable, Equatable {
        public var removed: Int64
        /// The first and last `seq` kept (nil when the history is empty).
        public var first: Int64?
        public var last: Int64?
    }

    /// Deletes every history row but the newest `keeping` (at least 1: the next commit is
    /// numbered after the last row, so the last row always stays), in one statement, while
    /// servers go on saving.
    ///
    /// A server that has not taken a removed commit yet can no longer follow the database: its
    /// catch-up finds the hole and fails, and it must be restarted. Subscribers resuming with a
    /// `since` older than the first kept commit get `history expired`.
    ///
    /// - Throws: ``PostgresStoreError/invalidArgument(_:)`` for `keeping` below 1, or the
    ///   statement's error (nothing is removed).
    public func trimHistory(keeping: Int64) throws -> HistoryTrim {
        guard keeping >= 1 else {
            throw PostgresStoreError.invalidArgument("\(keeping) history rows cannot be kept: at least the newest must stay (the next commit is numbered after it)")
        }
        let table = "\"\(CommitHistory.table)\""
        var statement = SQLStatement()
        statement.text = """
            WITH removed AS (DELETE FROM \(table) WHERE seq <= (SELECT max(seq) FROM \(table)) - \(statement.parameter(keeping)) RETURNING seq) \
            SELECT (SELECT count(*) FROM removed), (SELECT min(seq) FROM \(table) WHERE seq > coalesce((SELECT max(seq) FROM removed), 0)), \
            (SELECT max(seq) FROM \(table))
            """
        guard let row = try session.run(statement.text, statement.binds).first else {
            throw PostgresStoreError.damagedSchema("the trim of \(table) gave no answer")
        }
        let cells = row.makeRandomAccess()
        return HistoryTrim(removed: try ColumnReader.integer(cells[0], what: "count") ?? 0,
                           first: try ColumnReader.integer(cells[1], what: "min(seq)"),
                           last: try ColumnReader.integer(cells[2], what: "max(seq)"))
    }
}
