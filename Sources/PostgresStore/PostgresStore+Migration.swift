import Foundation
import GraphCore
import PostgresNIO

/// A database's store replaced by its objects migrated to a new model version (`docserver
/// migrate` on a `postgresql://` URL): one transaction that keeps the old tables, whole, in a
/// schema of their own.
extension PostgresStore {
    /// Why a migration of the database cannot go on, with what to do about it.
    public enum MigrationRefusal: Error, CustomStringConvertible, Sendable, Equatable {
        /// Other sessions are connected to the database (servers, most likely).
        case inUse(address: String, sessions: Int)
        /// A commit was made after the migration read the database.
        case committedMeanwhile(address: String, read: Int64, now: Int64)
        /// The schema that would keep the old tables exists already.
        case backupExists(address: String, schema: String)

        public var description: String {
            switch self {
            case .inUse(let address, let sessions):
                return "\(address) is in use: \(sessions) other session(s) are connected to the database (stop the servers on it, then migrate)"
            case .committedMeanwhile(let address, let read, let now):
                return "\(address) changed while it was migrated: the last commit was \(read) when it was read and is \(now) now; "
                    + "nothing was changed, run the migration again with the servers stopped"
            case .backupExists(let address, let schema):
                return "\(address) already has the schema \(schema), which keeps the tables of an earlier migration from this "
                    + "model version; drop it (DROP SCHEMA \(TableLayout.quoted(schema)) CASCADE) once it is not needed, then migrate"
            }
        }
    }

    /// The number of sessions connected to the database other than this store's.
    public func otherSessions() throws -> Int {
        let rows = try session.run("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        guard let row = rows.first else { return 0 }
        return Int(clamping: try ColumnReader.integer(row.makeRandomAccess()[0], what: "count") ?? 0)
    }

    /// Replaces the database's store, made with `oldModel` and read at commit `lastCommit`, by
    /// `objects` of this store's model (this store is made with the new model's coordinator and
    /// not added to it: the database still holds the old one), in one transaction:
    ///
    /// 1. refused when other sessions are connected, or when a commit was made since the read
    ///    (checked with the old tables locked);
    /// 2. the old tables, join tables, metadata, reference sequence and history move, whole, into
    ///    the schema `backupSchema` (refused when it exists);
    /// 3. the new model's tables are made, the objects written with their IDs and versions under
    ///    the store's identifier, the reference sequence set past `lastReference`, and one history
    ///    row numbered `lastCommit + 1` by `docserver migrate` (a change feed's `since` from
    ///    before the migration is answered `history expired`).
    ///
    /// A failure at any step rolls everything back: the database is as it was.
    public func replaceStore(madeWith oldModel: ObjectModel, objects: [ObjectSnapshot], storeIdentifier: String,
                             lastCommit: Int64, lastReference: Int64, backupSchema: String) throws {
        let oldLayout = try TableLayout(model: oldModel)
        let newLayout = try layout
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        let address = self.address.description
        guard lastCommit < Int64.max else { throw GraphError.store("\(address): commit numbers are exhausted (last commit \(lastCommit))") }
        try session.transaction {
            var lock = SQLStatement()
            lock.text = "SELECT pg_advisory_xact_lock(\(lock.parameter(SchemaSetup.advisoryLockKey)))"
            try session.run(lock.text, lock.binds)
            let others = try otherSessions()
            guard others == 0 else { throw MigrationRefusal.inUse(address: address, sessions: others) }
            let oldTables = oldLayout.roots + oldLayout.allJoinTables.map(\.name)
                + [TableLayout.metadataTable, TableLayout.entityTable, CommitHistory.table]
            try session.run("LOCK TABLE \(oldTables.map(TableLayout.quoted).joined(separator: ", ")) IN ACCESS EXCLUSIVE MODE")
            let now = try CommitHistory.latest(session: session)
            guard now == lastCommit else { throw MigrationRefusal.committedMeanwhile(address: address, read: lastCommit, now: now) }

            var exists = SQLStatement()
            exists.text = "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = \(exists.parameter(backupSchema)))"
            if let row = try session.run(exists.text, exists.binds).first, (try? row.makeRandomAccess()[0].decode(Bool.self)) == true {
                throw MigrationRefusal.backupExists(address: address, schema: backupSchema)
            }
            let schema = TableLayout.quoted(backupSchema)
            try session.run("CREATE SCHEMA \(schema)")
            for table in oldTables { try session.run("ALTER TABLE \(TableLayout.quoted(table)) SET SCHEMA \(schema)") }
            try session.run("ALTER SEQUENCE \(TableLayout.quoted(TableLayout.referenceSequence)) SET SCHEMA \(schema)")

            _ = try SchemaSetup(session: session, layout: newLayout, model: model).create(storeType: Self.storeType)
            let batches = stride(from: 0, to: objects.count, by: Self.objectsPerExportRead).lazy.map {
                Array(objects[$0..<min($0 + Self.objectsPerExportRead, objects.count)])
            }
            try writeImported(batches, storeIdentifier: storeIdentifier, lastCommit: lastCommit + 1, author: "docserver migrate",
                              referencesAbove: lastReference)
        }
    }

    /// The schema that keeps a store's tables from before a migration from the model version
    /// whose hash is `versionHash`: `_graph_backup_` and the hash's first 12 hex digits.
    public static func backupSchema(forModelVersionHash versionHash: String) -> String {
        "_graph_backup_" + String(versionHash.prefix(12)).lowercased()
    }
}
