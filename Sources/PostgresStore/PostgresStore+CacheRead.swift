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
        var references: [String: [Int64]] = [:]
        for id in ids {
            guard case .int(let reference) = id.referenceObject, !id.isTemporary else { continue }
            references[TableLayout.root(of: id.entity).name, default: []].append(reference)
        }
        var snapshots: [ObjectSnapshot] = []
        var through: Int64 = 0
        for (root, all) in references.sorted(by: { $0.key < $1.key }) {
            guard let rootEntity = model.entity(named: root) else { continue }
            let (objectList, positions, next) = try selectListWithToMany(root: rootEntity)
            let list = objectList + ", \(CommitHistory.latestExpression)"
            for start in stride(from: 0, to: all.count, by: Self.objectsPerRead) {
                var statement = SQLStatement()
                let chunk = Array(all[start..<min(start + Self.objectsPerRead, all.count)])
                statement.text = "SELECT \(list) FROM \(TableLayout.quoted(root)) t WHERE t.\"_id\" = ANY(\(statement.parameter(chunk)))"
                let rows = try session.runPrepared(statement)
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
