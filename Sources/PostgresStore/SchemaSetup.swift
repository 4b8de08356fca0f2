import Foundation
import GraphCore
import PostgresNIO

/// Opens a database for a store: creates the schema from the model when the database has
/// none, or reads the store's metadata and the entities' version hashes it was made with.
///
/// Two processes opening one empty database at once are serialized by a transaction-level
/// advisory lock: one creates the schema, the other reads it.
struct SchemaSetup {
    /// The advisory lock key the store takes while it creates or reads its schema.
    static let advisoryLockKey: Int64 = 0x6772_6170_6873_6368  // "graphsch"

    let session: DatabaseSession
    let layout: TableLayout
    let model: ObjectModel

    /// The store's metadata, from the database or from a schema made now (unless `create` is
    /// false: then a database without one is refused with ``PostgresStoreError/noStore(address:)``).
    func openOrCreate(storeType: String, create mayCreate: Bool = true) throws -> StoreMetadata {
        try session.transaction {
            var lock = SQLStatement()
            lock.text = "SELECT pg_advisory_xact_lock(\(lock.parameter(Self.advisoryLockKey)))"
            try session.run(lock.text, lock.binds)
            if try exists(TableLayout.metadataTable) {
                try session.run(CommitHistory.creationStatement)  // a database made before the history existed
                try addPreviousColumn()  // or before its objects' previous values were recorded
                try createHistoryFunction()  // or before the function that numbers it
                return try read(storeType: storeType)
            }
            guard mayCreate else { throw PostgresStoreError.noStore(address: session.address.description) }
            if try exists(TableLayout.entityTable) {
                throw PostgresStoreError.damagedSchema("the table \(TableLayout.entityTable) exists without \(TableLayout.metadataTable)")
            }
            return try create(storeType: storeType)
        }
    }

    /// Creates the function that numbers and writes history rows (``CommitHistory/writeFunction``)
    /// unless the database holds it: a database may be opened by a role that may call it but
    /// not replace it.
    private func createHistoryFunction() throws {
        let rows = try session.run(CommitHistory.functionExistsStatement)
        if let row = rows.first, (try? row.makeRandomAccess()[0].decode(Bool.self)) == true { return }
        try session.run(CommitHistory.functionCreationStatement)
    }

    /// Adds the history's column `previous` when the table has none: a database may be opened
    /// by a role that may write the table but not alter it, as long as the column is there.
    private func addPreviousColumn() throws {
        var statement = SQLStatement()
        statement.text = """
            SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(\(statement.parameter(TableLayout.quoted(CommitHistory.table)))) \
            AND attname = 'previous' AND NOT attisdropped)
            """
        let rows = try session.run(statement.text, statement.binds)
        if let row = rows.first, (try? row.makeRandomAccess()[0].decode(Bool.self)) == true { return }
        try session.run(CommitHistory.previousColumnStatement)
    }

    private func exists(_ table: String) throws -> Bool {
        var statement = SQLStatement()
        statement.text = "SELECT to_regclass(\(statement.parameter(TableLayout.quoted(table)))) IS NOT NULL"
        let rows = try session.run(statement.text, statement.binds)
        guard let row = rows.first else { return false }
        return (try? row.makeRandomAccess()[0].decode(Bool.self)) ?? false
    }

    /// Makes the model's tables, the history table when there is none, and the store's metadata.
    func create(storeType: String) throws -> StoreMetadata {
        for statement in layout.creationStatements + [CommitHistory.creationStatement] { try session.run(statement) }
        try createHistoryFunction()
        let metadata = StoreMetadata(storeType: storeType, entityVersionHashes: model.entityVersionHashes,
                                     modelVersionHash: model.versionHash)
        let entries = [("storeIdentifier", metadata.storeIdentifier), ("storeType", storeType),
                       ("modelVersionHash", model.versionHash), ("layout", "single-table-1")]
        for (key, value) in entries {
            var insert = SQLStatement()
            insert.text = "INSERT INTO \(TableLayout.quoted(TableLayout.metadataTable)) (key, value) VALUES (\(insert.parameter(key)), \(insert.parameter(value)))"
            try session.run(insert.text, insert.binds)
        }
        for (entity, hash) in model.entityVersionHashes.sorted(by: { $0.key < $1.key }) {
            var insert = SQLStatement()
            insert.text = "INSERT INTO \(TableLayout.quoted(TableLayout.entityTable)) (entity, version_hash) VALUES (\(insert.parameter(entity)), \(insert.parameter(hash)))"
            try session.run(insert.text, insert.binds)
        }
        return metadata
    }

    private func read(storeType: String) throws -> StoreMetadata {
        var values: [String: String] = [:]
        for row in try session.run("SELECT key, value FROM \(TableLayout.quoted(TableLayout.metadataTable))") {
            let cells = row.makeRandomAccess()
            if let key = try ColumnReader.text(cells[0], what: "key"), let value = try ColumnReader.text(cells[1], what: "value") {
                values[key] = value
            }
        }
        guard let identifier = values["storeIdentifier"] else {
            throw PostgresStoreError.damagedSchema("\(TableLayout.metadataTable) has no storeIdentifier")
        }
        var hashes: [String: String] = [:]
        for row in try session.run("SELECT entity, version_hash FROM \(TableLayout.quoted(TableLayout.entityTable))") {
            let cells = row.makeRandomAccess()
            if let entity = try ColumnReader.text(cells[0], what: "entity"), let hash = try ColumnReader.text(cells[1], what: "version_hash") {
                hashes[entity] = hash
            }
        }
        guard !hashes.isEmpty || model.entities.isEmpty else {
            throw PostgresStoreError.damagedSchema("\(TableLayout.entityTable) names no entity")
        }
        return StoreMetadata(storeType: storeType, storeIdentifier: identifier, entityVersionHashes: hashes,
                             modelVersionHash: values["modelVersionHash"])
    }
}
