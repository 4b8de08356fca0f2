import Foundation
import GraphCore
import PostgresNIO

extension PostgresStore {
    /// The select list of a hierarchy's table (aliased `t`): `_id`, `_entity`, `_version`, its
    /// columns, then for each to-one column the entity of the object it names.
    func selectList(root: String) throws -> String {
        let layout = try layout
        var items = ["t.\"_id\"", "t.\"_entity\"", "t.\"_version\""]
        let columns = layout.columns[root] ?? []
        for column in columns { items.append(ColumnReader.selectExpression(column.name, type: column.type)) }
        for column in columns {
            guard let destination = column.destinationRoot else { continue }
            items.append("(SELECT d.\"_entity\" FROM \(TableLayout.quoted(destination)) d WHERE d.\"_id\" = t.\(TableLayout.quoted(column.name)))")
        }
        return items.joined(separator: ", ")
    }

    /// ``selectList(root:)`` followed by every to-many relationship of the hierarchy as two arrays
    /// (its targets and their entities, in order; each join table once): `toMany` says where, by
    /// join table name, as ``readRows(_:root:toMany:)`` takes it, and `width` how many columns
    /// the list has. One statement then reads whole objects.
    func selectListWithToMany(root: EntityDescription) throws -> (list: String, toMany: [String: Int], width: Int) {
        if let made = objectSelectLists[root.name] { return made }
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        let layout = try layout
        var joinTables: [TableLayout.JoinTable] = []
        for entity in model.entities where entity.isKind(of: root) {
            for index in entity.relationshipIndices {
                guard case .relationship(let relationship) = entity.properties[index], relationship.isToMany,
                      let table = layout.joinTable(of: relationship.name, in: entity),
                      !joinTables.contains(where: { $0.name == table.name }) else { continue }
                joinTables.append(table)
            }
        }
        var list = try selectList(root: root.name)
        let columns = layout.columns[root.name] ?? []
        var next = 3 + columns.count + columns.filter { $0.destinationRoot != nil }.count
        var positions: [String: Int] = [:]
        for table in joinTables {
            let join = TableLayout.quoted(table.name), destination = TableLayout.quoted(table.destinationRoot)
            list += ", ARRAY(SELECT j.target FROM \(join) j WHERE j.owner = t.\"_id\" ORDER BY j.position)"
            list += ", ARRAY(SELECT d.\"_entity\" FROM \(join) j JOIN \(destination) d ON d.\"_id\" = j.target WHERE j.owner = t.\"_id\" ORDER BY j.position)"
            positions[table.name] = next
            next += 2
        }
        objectSelectLists[root.name] = (list, positions, next)
        return (list, positions, next)
    }

    /// The objects of one row each, with their to-many relationships read from the join tables
    /// (or, with `toMany`, from the rows' own cells: by join table name, the position of the cell
    /// of its targets, the next one holding their entities).
    func readRows(_ rows: [PostgresRow], root: String, toMany: [String: Int]? = nil) throws -> [ObjectSnapshot] {
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        let reading = try rowReading(root: root, toMany: toMany)
        var snapshots: [ObjectSnapshot] = []
        snapshots.reserveCapacity(rows.count)
        for row in rows {
            let cells = row.makeRandomAccess()
            guard let reference = try ColumnReader.integer(cells[0], what: "_id"),
                  let entityName = try ColumnReader.text(cells[1], what: "_entity"),
                  let version = try ColumnReader.integer(cells[2], what: "_version")
            else { throw PostgresStoreError.damagedSchema("a row of \(root) has no _id, _entity or _version") }
            guard let (entity, properties) = reading.entities[entityName] else {
                throw PostgresStoreError.unreadableValue(entity: root, key: "_entity", reason: "the model has no entity \(entityName)")
            }
            var values = [Value](repeating: .null, count: properties.count)
            for (index, property) in properties.enumerated() {
                switch property {
                case .absent:
                    continue
                case .attribute(let at, let type, let key):
                    values[index] = try ColumnReader.value(cells[at], type: type, entity: entityName, key: key)
                case .toMany(let at, let key):
                    values[index] = .objects(try targets(cells[at], entities: cells[at + 1], model: model, what: key))
                case .toManyLater:
                    values[index] = .objects([])
                case .toOne(let at, let entityAt, let key):
                    guard let target = try ColumnReader.integer(cells[at], what: key),
                          let targetName = try ColumnReader.text(cells[entityAt], what: key),
                          let targetEntity = reading.entities[targetName]?.entity
                    else { continue }
                    values[index] = .object(newObjectID(for: targetEntity, referenceObject: .int(target)))
                }
            }
            snapshots.append(ObjectSnapshot(objectID: newObjectID(for: entity, referenceObject: .int(reference)), version: version, values: values))
        }
        if toMany == nil { try fillToMany(&snapshots) }
        return snapshots
    }

    /// How rows of `root`'s table are read (with `toMany`, their to-many relationships from their
    /// own cells), made at the first read and kept: `toMany` is always the one
    /// ``selectListWithToMany(root:)`` gives for `root`.
    private func rowReading(root: String, toMany: [String: Int]?) throws -> RowReading {
        let key = toMany == nil ? root : root + "\u{0}toMany"
        if let made = rowReadings[key] { return made }
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        let made = RowReading(model: model, layout: try layout, root: root, toMany: toMany)
        rowReadings[key] = made
        return made
    }

    /// The targets of a to-many relationship from two array cells: their references and entities, in order.
    private func targets(_ references: PostgresCell, entities: PostgresCell, model: ObjectModel, what: String) throws -> [ObjectID] {
        let numbers: [Int64], names: [String]
        do {
            numbers = try references.decode([Int64]?.self) ?? []
            names = try entities.decode([String]?.self) ?? []
        } catch {
            throw PostgresStoreError.unreadableValue(entity: "(store)", key: what, reason: "not an array of references")
        }
        guard numbers.count == names.count else {
            throw PostgresStoreError.unreadableValue(entity: "(store)", key: what, reason: "references and entities differ in number")
        }
        return zip(numbers, names).compactMap { number, name in
            model.entity(named: name).map { newObjectID(for: $0, referenceObject: .int(number)) }
        }
    }

    /// Reads the to-many relationships of `snapshots` from their join tables: one statement
    /// per join table, for all the objects at once.
    private func fillToMany(_ snapshots: inout [ObjectSnapshot]) throws {
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        let layout = try layout
        // join table name → (relationship name, owners' positions in `snapshots`)
        var owners: [String: (table: TableLayout.JoinTable, name: String, positions: [Int])] = [:]
        for (position, snapshot) in snapshots.enumerated() {
            let entity = snapshot.objectID.entity
            for index in entity.relationshipIndices {
                guard case .relationship(let relationship) = entity.properties[index], relationship.isToMany,
                      let table = layout.joinTable(of: relationship.name, in: entity) else { continue }
                owners[table.name, default: (table, relationship.name, [])].positions.append(position)
            }
        }
        for (_, entry) in owners.sorted(by: { $0.key < $1.key }) {
            var ids: [Int64] = []
            var positionByID: [Int64: Int] = [:]
            for position in entry.positions {
                guard case .int(let reference) = snapshots[position].objectID.referenceObject else { continue }
                ids.append(reference)
                positionByID[reference] = position
            }
            var statement = SQLStatement()
            statement.text = """
                SELECT j.owner, j.target, d."_entity" FROM \(TableLayout.quoted(entry.table.name)) j \
                JOIN \(TableLayout.quoted(entry.table.destinationRoot)) d ON d."_id" = j.target \
                WHERE j.owner = ANY(\(statement.parameter(ids))) ORDER BY j.owner, j.position
                """
            var targets: [Int64: [ObjectID]] = [:]
            for row in try session.run(statement.text, statement.binds) {
                let cells = row.makeRandomAccess()
                guard let owner = try ColumnReader.integer(cells[0], what: "owner"),
                      let target = try ColumnReader.integer(cells[1], what: "target"),
                      let name = try ColumnReader.text(cells[2], what: "_entity"),
                      let entity = model.entity(named: name)
                else { continue }
                targets[owner, default: []].append(newObjectID(for: entity, referenceObject: .int(target)))
            }
            for (owner, position) in positionByID {
                let entity = snapshots[position].objectID.entity
                guard let index = entity.index(ofProperty: entry.name) else { continue }
                snapshots[position].values[index] = .objects(targets[owner] ?? [])
            }
        }
    }

    /// The objects with these IDs, read together: one `SELECT … WHERE "_id" = ANY(…)` per
    /// table, their to-many relationships in the same statement
    /// (``committedSnapshotsThrough(of:)``); IDs with no row are left out.
    public func committedSnapshots(of ids: [ObjectID]) throws -> [ObjectSnapshot] {
        try committedSnapshotsThrough(of: ids).snapshots
    }

    /// Objects read by one statement of ``committedSnapshots(of:)``.
    static let objectsPerRead = 10_000

    /// The objects of a hierarchy's table whose column (`where` ends with `= `) is `value`.
    func loadRows(root: EntityDescription, where clause: String, _ value: Int64) throws -> [ObjectSnapshot] {
        var statement = SQLStatement()
        statement.text = "SELECT \(try selectList(root: root.name)) FROM \(TableLayout.quoted(root.name)) t WHERE \(clause)\(statement.parameter(value))"
        return try readRows(try session.run(statement.text, statement.binds), root: root.name)
    }
}
