import Foundation
import GraphCore
import PostgresNIO

/// Objects copied in from another store (`docserver copy`): written as they are, with their
/// references and versions, set-based, in one transaction.
extension PostgresStore {
    /// Whether the database holds no object and no commit: the only database a copy goes into.
    public func holdsNothing() throws -> Bool {
        var tables = try layout.roots.map(TableLayout.quoted)
        tables.append("\"\(CommitHistory.table)\"")
        for table in tables {
            let rows = try session.run("SELECT EXISTS (SELECT 1 FROM \(table))")
            if let row = rows.first, (try? row.makeRandomAccess()[0].decode(Bool.self)) == true { return false }
        }
        return true
    }

    /// Writes `batches` of objects with their references, versions and to-many relationships,
    /// in one transaction (references between batches are checked at its end, so a batch may
    /// name objects of a later one), then takes `storeIdentifier` as the database's (object IDs
    /// name their store: the source's IDs stay valid), moves the reference sequence past every
    /// reference written and, when `lastCommit` is above 0, writes one history row numbered
    /// `lastCommit` (by `author`, naming no object), so that the next save is numbered after the
    /// source's last commit. Calls `progress` with the number of objects written after each
    /// batch. The store must be removed from its coordinator afterwards (its identifier changed);
    /// ``analyzeObjectTables()`` then gives PostgreSQL the statistics of what was loaded.
    ///
    /// - Throws: ``PostgresStoreError`` (a refused statement: nothing is written), or
    ///   ``GraphError/store(_:)`` for an object whose ID is not an integer reference.
    public func importObjects(_ batches: some Sequence<[ObjectSnapshot]>, storeIdentifier: String, lastCommit: Int64, author: String,
                              progress: (Int) -> Void = { _ in }) throws {
        try session.transaction {
            try writeImported(batches, storeIdentifier: storeIdentifier, lastCommit: lastCommit, author: author, progress: progress)
        }
    }

    /// Has PostgreSQL gather the statistics of the objects' tables (`ANALYZE`), after a bulk load:
    /// without them it plans every statement blind until autovacuum analyzes the tables, a minute
    /// or more later (on 2,000,003 copied Songs, fetches by an indexed title ran at 7 to 10 a
    /// second instead of thousands). Changes no data.
    ///
    /// - Throws: ``PostgresStoreError`` (the database refused or could not be reached).
    public func analyzeObjectTables() throws {
        let tables = try layout.objectTables.map(TableLayout.quoted).joined(separator: ", ")
        if !tables.isEmpty { try session.run("ANALYZE \(tables)") }
    }

    /// ``importObjects(_:storeIdentifier:lastCommit:author:progress:)`` within the transaction
    /// under way; the reference sequence moves past `referencesAbove` too (references handed
    /// out to objects since deleted).
    func writeImported(_ batches: some Sequence<[ObjectSnapshot]>, storeIdentifier: String, lastCommit: Int64, author: String,
                       referencesAbove: Int64 = 0, progress: (Int) -> Void = { _ in }) throws {
        var identify = SQLStatement()
        identify.text = "UPDATE \(TableLayout.quoted(TableLayout.metadataTable)) SET value = \(identify.parameter(storeIdentifier)) "
            + "WHERE key = 'storeIdentifier'"
        try session.run(identify.text, identify.binds)
        var written = 0
        var highest = referencesAbove
        for batch in batches where !batch.isEmpty {
            for snapshot in batch { highest = max(highest, try reference(of: snapshot.objectID)) }
            try insertRows(batch, keepingVersions: true)
            try writeToManyRows(inserted: batch, updated: [])
            written += batch.count
            progress(written)
        }
        if highest > 0 {
            var statement = SQLStatement()
            statement.text = "SELECT setval('\(TableLayout.quoted(TableLayout.referenceSequence))', \(statement.parameter(highest)))"
            try session.run(statement.text, statement.binds)
        }
        if lastCommit > 0 {
            var statement = SQLStatement()
            let milliseconds = Int64(exactly: (Date().timeIntervalSince1970 * 1000).rounded(.down)) ?? 0
            statement.text = """
                INSERT INTO "\(CommitHistory.table)" (seq, committed_at, author, entities, refs, kinds) \
                VALUES (\(statement.parameter(lastCommit)), \(statement.parameter(milliseconds)), \(statement.parameter(author)), \
                '{}', '{}', '')
                """
            try session.run(statement.text, statement.binds)
        }
    }
}
