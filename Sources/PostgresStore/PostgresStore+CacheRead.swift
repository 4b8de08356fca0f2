import Foundation
import GraphCore
import PostgresNIO

extension PostgresStore {
    /// The objects with these IDs and the number of the last commit they may hold: one statement
    /// per table, each row with its to-many relationships as arrays and the history's last number,
    /// all read in the statement's one snapshot (a server's cache misses: what it read holds no
    /// commit after `through`, and every commit up to it). IDs with no row are left out.
    func committedSnapshotsThrough(of ids: [ObjectID]) throws -> (snapshots: [ObjectSnapshot], through: Int64) {
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        let layout = try layout
        var references: [String: [Int64]] = [:]
        for id in ids {
            guard case .int(let reference) = id.referenceObject, !id.isTemporary else { continue }
            references[TableLayout.root(of: id.entity).name, default: []].append(reference)
        }
        var snapshots: [ObjectSnapshot] = []
        var through: Int64 = 0
        for (root, all) in references.sorted(by: { $0.key < $1.key }) {
            guard let rootEntity = model.entity(named: root) else { continue }
            // The to-many relationships of every entity of the hierarchy, each table once.
            var joinTables: [TableLayout.JoinTable] = []
            for entity in model.entities where entity.isKind(of: rootEntity) {
                for index in entity.relationshipIndices {
                    guard case .relationship(let relationship) = entity.properties[index], relationship.isToMany,
                          let table = layout.joinTable(of: relationship.name, in: entity),
                          !joinTables.contains(where: { $0.name == table.name }) else { continue }
                    joinTables.append(table)
                }
            }
            var list = try selectList(root: root)
            let columns = layout.columns[root] ?? []
            var next = 3 + columns.count + columns.filter { $0.destinationRoot != nil }.count
            var positions: [String: Int] = [:]
            for table in joinTables {
                let join = TableLayout.quoted(table.name), destination = TableLayout.quoted(table.destinationRoot)
                list += ", ARRAY(SELECT j.target FROM \(join) j WHERE j.owner = t.\"_id\" ORDER BY j.position)"
                list += ", ARRAY(SELECT d.\"_entity\" FROM \(join) j JOIN \(destination) d ON d.\"_id\" = j.target WHERE j.owner = t.\"_id\" ORDER BY j.position)"
                positions[table.name] = next
                next += 2
            }
            list += ", (SELECT coalesce(max(seq), 0) FROM \(TableLayout.quoted(CommitHistory.table)))"
            for start in stride(from: 0, to: all.count, by: Self.objectsPerRead) {
                var statement = SQLStatement()
                let chunk = Array(all[start..<min(start + Self.objectsPerRead, all.count)])
                statement.text = "SELECT \(list) FROM \(TableLayout.quoted(root)) t WHERE t.\"_id\" = ANY(\(statement.parameter(chunk))::bigint[])"
                let rows = try session.run(statement.text, statement.binds)
                if let row = rows.first, let latest = try ColumnReader.integer(row.makeRandomAccess()[next], what: "max(seq)") {
                    through = max(through, latest)
                } else if rows.isEmpty {
                    // No row: the statement's snapshot still had a last commit.
                    through = max(through, try CommitHistory.latest(session: session))
                }
                snapshots += try readRows(rows, root: root, toMany: positions)
            }
        }
        if references.isEmpty { through = try CommitHistory.latest(session: session) }
        return (snapshots, through)
    }
}
