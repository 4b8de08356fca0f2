import Foundation
import GraphCore
import PostgresNIO

/// The statements of a save, set-based: one per table (or per entity, for rows whose columns
/// differ) for all the objects of the save, not one per object, so that a group commit of
/// many saves costs a handful of round trips. Inserts and updates bind each column as one
/// array (``ColumnArray``) read with `unnest(…)`, and are cut every ``rowsPerStatement`` rows.
/// A statement's text depends only on its table and columns, so each is prepared once per
/// connection (``DatabaseSession/runPrepared(_:)``): PostgreSQL does not parse and plan it again
/// at every commit.
extension PostgresStore {
    /// Locks the rows of `ids` (`SELECT … FOR UPDATE`, table by table in name order, rows in ID
    /// order, so that two saves lock in one order) and returns the version of each row found.
    func lockRows(_ ids: [ObjectID]) throws -> [ObjectID: Int64] {
        var versions: [ObjectID: Int64] = [:]
        for (table, group) in try byTable(ids) {
            var statement = SQLStatement()
            let references = try group.map { try reference(of: $0) }
            statement.text = """
                SELECT t."_id", t."_version" FROM \(table) t WHERE t."_id" = ANY(\(statement.parameter(references))::bigint[]) \
                ORDER BY t."_id" FOR UPDATE
                """
            var found: [Int64: Int64] = [:]
            for row in try session.runPrepared(statement) {
                let cells = row.makeRandomAccess()
                guard let id = try ColumnReader.integer(cells[0], what: "_id"), let version = try ColumnReader.integer(cells[1], what: "_version") else { continue }
                found[id] = version
            }
            for (id, reference) in zip(group, references) { versions[id] = found[reference] }
        }
        return versions
    }

    /// Writes updated objects whose version is still the one read: one `UPDATE … FROM unnest(…)`
    /// per entity, each column bound as one array. Returns the new version of each object
    /// written; an object left out was at another version or deleted (a conflict).
    func updateRows(_ snapshots: [ObjectSnapshot]) throws -> [ObjectID: Int64] {
        var versions: [ObjectID: Int64] = [:]
        for group in Self.byEntity(snapshots) {
            let entity = group[0].objectID.entity
            let columns = Self.columns(of: entity)
            let table = try layout.table(of: entity)
            for chunk in Self.chunks(group) {
                var statement = SQLStatement()
                var keys = ColumnArray(.int8), read = ColumnArray(.int8)
                for snapshot in chunk {
                    keys.append(try reference(of: snapshot.objectID))
                    read.append(snapshot.version)
                }
                let arrays = [statement.parameter(keys), statement.parameter(read)]
                    + (try Self.columnArrays(columns, of: chunk, entity: entity.name)).map { statement.parameter($0) }
                let names = ["k", "v"] + columns.indices.map { "c\($0)" }
                let assignments = columns.enumerated().map { "\($1.quotedName) = u.c\($0)" } + ["\"_version\" = t.\"_version\" + 1"]
                statement.text = """
                    UPDATE \(table) t SET \(assignments.joined(separator: ", ")) \
                    FROM unnest(\(arrays.joined(separator: ", "))) AS u(\(names.joined(separator: ", "))) \
                    WHERE t."_id" = u.k AND t."_version" = u.v RETURNING t."_id", t."_version"
                    """
                var written: [Int64: Int64] = [:]
                for row in try session.runPrepared(statement) {
                    let cells = row.makeRandomAccess()
                    guard let id = try ColumnReader.integer(cells[0], what: "_id"), let version = try ColumnReader.integer(cells[1], what: "_version") else { continue }
                    written[id] = version
                }
                for snapshot in chunk {
                    if let version = written[try reference(of: snapshot.objectID)] { versions[snapshot.objectID] = version }
                }
            }
        }
        return versions
    }

    /// Deletes objects whose version is still the one read (their join rows go with them): one
    /// `DELETE … USING unnest(…)` per table. Returns the objects deleted; one left out was at
    /// another version or deleted already (a conflict).
    func deleteRows(_ snapshots: [ObjectSnapshot]) throws -> Set<ObjectID> {
        var deleted = Set<ObjectID>()
        let byID = Dictionary(snapshots.map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
        for (table, ids) in try byTable(snapshots.map(\.objectID)) {
            var statement = SQLStatement()
            let references = try ids.map { try reference(of: $0) }
            let versions = ids.map { byID[$0]?.version ?? 0 }
            statement.text = """
                DELETE FROM \(table) t USING unnest(\(statement.parameter(references))::bigint[], \(statement.parameter(versions))::bigint[]) AS u(k, v) \
                WHERE t."_id" = u.k AND t."_version" = u.v RETURNING t."_id"
                """
            var gone = Set<Int64>()
            for row in try session.runPrepared(statement) {
                if let id = try ColumnReader.integer(row.makeRandomAccess()[0], what: "_id") { gone.insert(id) }
            }
            for (id, reference) in zip(ids, references) where gone.contains(reference) { deleted.insert(id) }
        }
        return deleted
    }

    /// Inserts new objects at version 1 (or at their snapshots' versions, for a copy from
    /// another store): one `INSERT … SELECT … FROM unnest(…)` per entity, each column bound as
    /// one array.
    func insertRows(_ snapshots: [ObjectSnapshot], keepingVersions: Bool = false) throws {
        for group in Self.byEntity(snapshots) {
            let entity = group[0].objectID.entity
            let columns = Self.columns(of: entity)
            let table = try layout.table(of: entity)
            let names = ["\"_id\"", "\"_entity\"", "\"_version\""] + columns.map(\.quotedName)
            for chunk in Self.chunks(group) {
                var statement = SQLStatement()
                var keys = ColumnArray(.int8, capacity: chunk.count), versions = ColumnArray(.int8, capacity: chunk.count)
                for snapshot in chunk {
                    keys.append(try reference(of: snapshot.objectID))
                    versions.append(keepingVersions ? snapshot.version : 1)
                }
                let arrays = [statement.parameter(keys), statement.parameter(versions)]
                    + (try Self.columnArrays(columns, of: chunk, entity: entity.name)).map { statement.parameter($0) }
                let selected = ["u.k", "\(statement.parameter(entity.name))::text", "u.v"] + columns.indices.map { "u.c\($0)" }
                let aliases = ["k", "v"] + columns.indices.map { "c\($0)" }
                statement.text = """
                    INSERT INTO \(table) (\(names.joined(separator: ", "))) \
                    SELECT \(selected.joined(separator: ", ")) FROM unnest(\(arrays.joined(separator: ", "))) AS u(\(aliases.joined(separator: ", ")))
                    """
                _ = try session.runPrepared(statement)
            }
        }
    }

    /// Writes the to-many relationships of saved objects into their join tables: per join
    /// table, one `DELETE` of the rows the updated owners had, then one `INSERT … unnest(…)` of
    /// every owner's targets in order.
    func writeToManyRows(inserted: [ObjectSnapshot], updated: [ObjectSnapshot]) throws {
        struct Rows {
            var replaced: [Int64] = []
            var owners: [Int64] = []
            var positions: [Int64] = []
            var targets: [Int64] = []
        }
        var tables: [String: Rows] = [:]
        // Per entity, once: its to-many relationships' value indices and quoted join tables.
        var joinsByEntity: [String: [(index: Int, table: String)]] = [:]
        let layout = try layout
        func joins(of entity: EntityDescription) -> [(index: Int, table: String)] {
            if let known = joinsByEntity[entity.name] { return known }
            let found = entity.relationshipIndices.compactMap { index -> (index: Int, table: String)? in
                guard case .relationship(let relationship) = entity.properties[index], relationship.isToMany,
                      let table = layout.joinTable(of: relationship.name, in: entity) else { return nil }
                return (index, TableLayout.quoted(table.name))
            }
            joinsByEntity[entity.name] = found
            return found
        }
        for (snapshots, replacing) in [(inserted, false), (updated, true)] {
            for snapshot in snapshots {
                let entity = snapshot.objectID.entity
                let found = joins(of: entity)
                guard !found.isEmpty else { continue }
                let owner = try reference(of: snapshot.objectID)
                for (index, name) in found {
                    if replacing { tables[name, default: Rows()].replaced.append(owner) }
                    guard case .objects(let targets) = snapshot.values[index], !targets.isEmpty else { continue }
                    // Appended in place: a copy taken out of the dictionary would copy its arrays on each append.
                    for (position, target) in targets.enumerated() {
                        let reference = try reference(of: target)
                        tables[name, default: Rows()].owners.append(owner)
                        tables[name, default: Rows()].positions.append(Int64(position) + 1)
                        tables[name, default: Rows()].targets.append(reference)
                    }
                }
            }
        }
        for (name, rows) in tables.sorted(by: { $0.key < $1.key }) {
            if !rows.replaced.isEmpty {
                var clear = SQLStatement()
                clear.text = "DELETE FROM \(name) WHERE owner = ANY(\(clear.parameter(rows.replaced))::bigint[])"
                _ = try session.runPrepared(clear)
            }
            guard !rows.owners.isEmpty else { continue }
            var fill = SQLStatement()
            fill.text = """
                INSERT INTO \(name) (owner, position, target) \
                SELECT * FROM unnest(\(fill.parameter(rows.owners))::bigint[], \(fill.parameter(rows.positions))::bigint[], \
                \(fill.parameter(rows.targets))::bigint[])
                """
            _ = try session.runPrepared(fill)
        }
    }

    // MARK: - Helpers

    /// A column an entity writes: an attribute, or a to-one relationship's reference.
    struct WrittenColumn {
        let quotedName: String
        let sqlType: String
        let index: Int
        let type: AttributeType?
        let key: String
    }

    /// The columns of an entity's row, in its properties' order.
    static func columns(of entity: EntityDescription) -> [WrittenColumn] {
        entity.properties.enumerated().compactMap { index, property in
            switch property {
            case .attribute(let attribute):
                return WrittenColumn(quotedName: TableLayout.quoted(attribute.name), sqlType: TableLayout.sqlType(attribute.type),
                                     index: index, type: attribute.type, key: attribute.name)
            case .relationship(let relationship) where !relationship.isToMany:
                return WrittenColumn(quotedName: TableLayout.quoted(relationship.name), sqlType: TableLayout.sqlType(nil),
                                     index: index, type: nil, key: relationship.name)
            case .relationship:
                return nil
            }
        }
    }

    /// The columns of `snapshots` (all of `entity`) as array parameters, in `columns`' order,
    /// made in one pass over the snapshots (a pass per column read every snapshot again).
    static func columnArrays(_ columns: [WrittenColumn], of snapshots: ArraySlice<ObjectSnapshot>, entity: String) throws -> [ColumnArray] {
        var arrays = columns.map { ColumnArray(ColumnArray.Element($0.type), capacity: snapshots.count) }
        for snapshot in snapshots {
            let values = snapshot.values
            for (position, column) in columns.enumerated() {
                try arrays[position].append(column.index < values.count ? values[column.index] : .null, entity: entity, key: column.key)
            }
        }
        return arrays
    }

    /// Snapshots grouped by concrete entity (the columns a row writes), in name order.
    static func byEntity(_ snapshots: [ObjectSnapshot]) -> [[ObjectSnapshot]] {
        Dictionary(grouping: snapshots, by: \.objectID.entityName).sorted { $0.key < $1.key }.map(\.value)
    }

    /// IDs grouped by their hierarchy's table, in the table's name order, each in reference order.
    private func byTable(_ ids: [ObjectID]) throws -> [(table: String, ids: [ObjectID])] {
        let layout = try layout
        let grouped = Dictionary(grouping: ids) { layout.table(of: $0.entity) }
        return try grouped.sorted { $0.key < $1.key }.map { table, ids in
            (table, try ids.map { (try reference(of: $0), $0) }.sorted { $0.0 < $1.0 }.map(\.1))
        }
    }

    /// Rows per statement of array parameters: bounds one statement's message (each column's
    /// array is one parameter, so PostgreSQL's limit on parameters does not apply).
    static let rowsPerStatement = 10_000

    /// Slices of `items` of at most ``rowsPerStatement``.
    static func chunks<T>(_ items: [T]) -> [ArraySlice<T>] {
        stride(from: 0, to: items.count, by: rowsPerStatement).map { items[$0..<min($0 + rowsPerStatement, items.count)] }
    }

    /// The integer reference of one of this store's objects.
    func reference(of id: ObjectID) throws -> Int64 {
        guard case .int(let reference) = id.referenceObject, !id.isTemporary else {
            throw GraphError.store("\(id.uriRepresentation) is not an object of this PostgreSQL store")
        }
        return reference
    }
}
