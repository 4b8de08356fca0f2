import Foundation
import GraphCore
import PostgresNIO

extension PostgresStore {
    /// Applies a save in one transaction. Updated and deleted objects are written only
    /// `WHERE "_version" =` the version the context read, locked ones are checked under a row
    /// lock; any mismatch rolls everything back and throws `GraphError.conflict` naming each
    /// object with the version read and the version now in the database (nil: deleted).
    ///
    /// Rows are written in the order of their IDs, so that two saves touching the same
    /// objects take their row locks in one order.
    func runSave(_ request: SaveChangesRequest) throws -> SaveResult {
        // Inserted objects with temporary IDs get references now (normally they came with
        // permanent IDs from obtainPermanentIDs).
        let temporary = request.insertedObjects.filter { $0.objectID.isTemporary }
        var permanent: [ObjectID: ObjectID] = [:]
        if !temporary.isEmpty {
            for (snapshot, id) in zip(temporary, try obtainPermanentIDs(for: temporary)) { permanent[snapshot.objectID] = id }
        }
        func resolved(_ snapshot: ObjectSnapshot) -> ObjectSnapshot {
            guard !permanent.isEmpty else { return snapshot }
            var copy = snapshot
            copy.objectID = permanent[snapshot.objectID] ?? snapshot.objectID
            for index in copy.objectID.entity.relationshipIndices {
                switch copy.values[index] {
                case .object(let target): copy.values[index] = .object(permanent[target] ?? target)
                case .objects(let targets): copy.values[index] = .objects(targets.map { permanent[$0] ?? $0 })
                default: break
                }
            }
            return copy
        }
        let inserted = request.insertedObjects.map(resolved)
        let updated = request.updatedObjects.map(resolved).sorted(by: Self.byReference)
        let deleted = request.deletedObjects.sorted(by: Self.byReference)
        // Checked even for rows the save writes: their UPDATE or DELETE names the version the
        // context read, which may be newer than the one the request was checked with.
        let checked = request.metadata.readVersions.map { id, version in
            ObjectSnapshot(objectID: id, version: version, values: Array(repeating: .null, count: id.entity.properties.count))
        }
        let locked = (request.lockedObjects + checked).sorted(by: Self.byReference)

        var versions: [ObjectID: Int64] = [:]
        let rows = Self.historyRows(of: request), time = request.metadata.time ?? Date()
        var sequences: [Int64] = []
        // A deadlock with another coordinator's save (PostgreSQL rolled this one back) is tried
        // again: the other save has committed by then, and a conflict with it is found as usual.
        var attempts = 0
        while true {
            attempts += 1
            do {
                versions = [:]
                sequences = try write(inserted: inserted, updated: updated, deleted: deleted, locked: locked, history: rows,
                                      time: time, versions: &versions)
                break
            } catch let refusal as UniqueRefusal {
                throw try uniquenessViolation(refusal, among: inserted + updated)
            } catch PostgresStoreError.statementFailed(let state, _, _) where (state == "40P01" || state == "40001") && attempts < 3 {
                continue
            }
        }
        return SaveResult(permanentIDs: permanent, versions: versions, sequences: sequences)
    }

    /// The history rows of a save: one per part of its metadata, each naming the objects its
    /// part names (an object the save changed that no part names goes to the last part's), as
    /// inserted, deleted or updated (the parts' objects the save does not hold: updated).
    static func historyRows(of request: SaveChangesRequest) -> [HistoryRow] {
        let parts = request.metadata.parts
        guard !parts.isEmpty else { return [] }
        var kinds: [ObjectID: CommittedObject.Kind] = [:]
        for snapshot in request.updatedObjects { kinds[snapshot.objectID] = .updated }
        for snapshot in request.insertedObjects { kinds[snapshot.objectID] = .inserted }
        for snapshot in request.deletedObjects { kinds[snapshot.objectID] = .deleted }
        let owner = request.metadata.partIndexByObject()
        var objects = parts.map(\.objects)
        for snapshot in request.insertedObjects + request.updatedObjects + request.deletedObjects
        where owner[snapshot.objectID] == nil {
            objects[parts.count - 1].append(snapshot.objectID)
        }
        return parts.indices.map { index in
            HistoryRow(author: parts[index].author, objects: objects[index].compactMap { id in
                guard case .int(let reference) = id.referenceObject else { return nil }
                return CommittedObject(entity: id.entityName, reference: reference, kind: kinds[id] ?? .updated)
            })
        }
    }

    /// An insert or update refused by a unique index, with the object written.
    private struct UniqueRefusal: Error {
        let index: String
        let snapshot: ObjectSnapshot
    }

    /// Writes the rows, then the history rows of `history` (their numbers are returned).
    private func write(inserted: [ObjectSnapshot], updated: [ObjectSnapshot], deleted: [ObjectSnapshot], locked: [ObjectSnapshot],
                       history: [HistoryRow], time: Date, versions: inout [ObjectID: Int64]) throws -> [Int64] {
        func refusing<T>(_ snapshot: ObjectSnapshot, _ body: () throws -> T) throws -> T {
            do {
                return try body()
            } catch PostgresStoreError.uniqueIndexViolated(let index, _) {
                throw UniqueRefusal(index: index, snapshot: snapshot)
            }
        }
        return try session.transaction {
            var conflicts: [ObjectSnapshot] = []
            for snapshot in locked where try !check(snapshot) { conflicts.append(snapshot) }
            for snapshot in updated {
                if let version = try refusing(snapshot, { try update(snapshot) }) { versions[snapshot.objectID] = version } else { conflicts.append(snapshot) }
            }
            for snapshot in deleted where try !delete(snapshot) { conflicts.append(snapshot) }
            if !conflicts.isEmpty {
                var seen = Set<ObjectID>()
                conflicts = conflicts.filter { seen.insert($0.objectID).inserted }  // checked and written: named once
                throw GraphError.conflict(try conflicts.map { snapshot in
                    Conflict(objectID: snapshot.objectID, expectedVersion: snapshot.version, currentVersion: try currentVersion(of: snapshot.objectID))
                })
            }
            for snapshot in inserted { try refusing(snapshot) { try insert(snapshot) } }
            for snapshot in inserted { try writeToMany(snapshot, replacing: false) }
            for snapshot in updated { try writeToMany(snapshot, replacing: true) }
            // Last: the history's lock is held only from here to COMMIT.
            return try CommitHistory.record(history, time: time, session: session)
        }
    }

    /// The uniqueness violation a unique index refused, as GraphCore names it: the entity, the
    /// constraint's values and both objects (another object of the save, or one in the database).
    private func uniquenessViolation(_ refusal: UniqueRefusal, among saved: [ObjectSnapshot]) throws -> Error {
        let layout = try layout
        guard let index = layout.uniqueIndexes.first(where: { $0.name == refusal.index }) else {
            return PostgresStoreError.uniqueIndexViolated(index: refusal.index, statement: "(save)")
        }
        let snapshot = refusal.snapshot
        let values = index.attributes.map { snapshot.value(forKey: $0) ?? .null }
        if let other = saved.first(where: { candidate in
            candidate.objectID != snapshot.objectID && index.kinds.contains(candidate.objectID.entityName)
                && index.attributes.map { candidate.value(forKey: $0) ?? .null } == values
        }) {
            return GraphError.uniquenessViolation(entity: index.entity, attributes: index.attributes, values: values,
                                                  objects: [other.objectID, snapshot.objectID])
        }
        var statement = SQLStatement()
        var conditions: [String] = []
        for (name, value) in zip(index.attributes, values) {
            let type = snapshot.objectID.entity.property(named: name)?.attribute?.type
            conditions.append("t.\(TableLayout.quoted(name)) = \(try statement.parameter(value, as: type, entity: index.entity, key: name))")
        }
        conditions.append("t.\"_entity\" = ANY(\(statement.parameter(index.kinds)))")
        conditions.append("t.\"_id\" <> \(statement.parameter(try reference(of: snapshot.objectID)))")
        statement.text = "SELECT t.\"_id\", t.\"_entity\" FROM \(TableLayout.quoted(index.root)) t WHERE \(conditions.joined(separator: " AND ")) LIMIT 1"
        var objects = [snapshot.objectID]
        if let row = try session.run(statement.text, statement.binds).first {
            let cells = row.makeRandomAccess()
            if let id = try ColumnReader.integer(cells[0], what: "_id"), let name = try ColumnReader.text(cells[1], what: "_entity"),
               let entity = model?.entity(named: name) {
                objects.insert(newObjectID(for: entity, referenceObject: .int(id)), at: 0)
            }
        }
        return GraphError.uniquenessViolation(entity: index.entity, attributes: index.attributes, values: values, objects: objects)
    }

    private static func byReference(_ a: ObjectSnapshot, _ b: ObjectSnapshot) -> Bool {
        switch (a.objectID.referenceObject, b.objectID.referenceObject) {
        case (.int(let x), .int(let y)): return x < y
        default: return a.objectID.uriRepresentation < b.objectID.uriRepresentation
        }
    }

    private func reference(of id: ObjectID) throws -> Int64 {
        guard case .int(let reference) = id.referenceObject, !id.isTemporary else {
            throw GraphError.store("\(id.uriRepresentation) is not an object of this PostgreSQL store")
        }
        return reference
    }

    /// The attribute and to-one columns of an object, with their values as parameters.
    private func columnValues(_ snapshot: ObjectSnapshot, into statement: inout SQLStatement) throws -> [(String, String)] {
        let entity = snapshot.objectID.entity
        var pairs: [(String, String)] = []
        for (index, property) in entity.properties.enumerated() {
            switch property {
            case .attribute(let attribute):
                let value = snapshot.values[index]
                pairs.append((TableLayout.quoted(attribute.name),
                              try statement.parameter(value, as: attribute.type, entity: entity.name, key: attribute.name)))
            case .relationship(let relationship) where !relationship.isToMany:
                pairs.append((TableLayout.quoted(relationship.name),
                              try statement.parameter(snapshot.values[index], as: nil, entity: entity.name, key: relationship.name)))
            case .relationship:
                continue
            }
        }
        return pairs
    }

    /// Writes an updated object if its version is still the one read; its new version, or nil.
    private func update(_ snapshot: ObjectSnapshot) throws -> Int64? {
        var statement = SQLStatement()
        var assignments = try columnValues(snapshot, into: &statement).map { "\($0) = \($1)" }
        assignments.append("\"_version\" = t.\"_version\" + 1")
        let id = statement.parameter(try reference(of: snapshot.objectID))
        let version = statement.parameter(snapshot.version)
        statement.text = """
            UPDATE \(try layout.table(of: snapshot.objectID.entity)) t SET \(assignments.joined(separator: ", ")) \
            WHERE t."_id" = \(id) AND t."_version" = \(version) RETURNING t."_version"
            """
        let rows = try session.run(statement.text, statement.binds)
        guard let row = rows.first else { return nil }
        return try ColumnReader.integer(row.makeRandomAccess()[0], what: "_version")
    }

    /// Deletes an object if its version is still the one read (its join rows go with it).
    private func delete(_ snapshot: ObjectSnapshot) throws -> Bool {
        var statement = SQLStatement()
        let id = statement.parameter(try reference(of: snapshot.objectID))
        let version = statement.parameter(snapshot.version)
        statement.text = "DELETE FROM \(try layout.table(of: snapshot.objectID.entity)) t WHERE t.\"_id\" = \(id) AND t.\"_version\" = \(version) RETURNING t.\"_id\""
        return !(try session.run(statement.text, statement.binds)).isEmpty
    }

    /// Whether a locked object is still at the version read (its row stays locked until the commit).
    private func check(_ snapshot: ObjectSnapshot) throws -> Bool {
        var statement = SQLStatement()
        let id = statement.parameter(try reference(of: snapshot.objectID))
        statement.text = "SELECT t.\"_version\" FROM \(try layout.table(of: snapshot.objectID.entity)) t WHERE t.\"_id\" = \(id) FOR UPDATE"
        guard let row = try session.run(statement.text, statement.binds).first else { return false }
        return try ColumnReader.integer(row.makeRandomAccess()[0], what: "_version") == snapshot.version
    }

    private func currentVersion(of id: ObjectID) throws -> Int64? {
        var statement = SQLStatement()
        let reference = statement.parameter(try reference(of: id))
        statement.text = "SELECT t.\"_version\" FROM \(try layout.table(of: id.entity)) t WHERE t.\"_id\" = \(reference)"
        guard let row = try session.run(statement.text, statement.binds).first else { return nil }
        return try ColumnReader.integer(row.makeRandomAccess()[0], what: "_version")
    }

    private func insert(_ snapshot: ObjectSnapshot) throws {
        var statement = SQLStatement()
        var names = ["\"_id\"", "\"_entity\"", "\"_version\""]
        var values = [statement.parameter(try reference(of: snapshot.objectID)), statement.parameter(snapshot.objectID.entityName),
                      statement.parameter(Int64(1))]
        for (name, value) in try columnValues(snapshot, into: &statement) {
            names.append(name)
            values.append(value)
        }
        statement.text = "INSERT INTO \(try layout.table(of: snapshot.objectID.entity)) (\(names.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
        try session.run(statement.text, statement.binds)
    }

    /// Writes an object's to-many relationships into their join tables (after removing the
    /// rows an updated object had).
    private func writeToMany(_ snapshot: ObjectSnapshot, replacing: Bool) throws {
        let entity = snapshot.objectID.entity
        let owner = try reference(of: snapshot.objectID)
        for index in entity.relationshipIndices {
            guard case .relationship(let relationship) = entity.properties[index], relationship.isToMany,
                  let table = try layout.joinTable(of: relationship.name, in: entity) else { continue }
            let name = TableLayout.quoted(table.name)
            if replacing {
                var clear = SQLStatement()
                clear.text = "DELETE FROM \(name) WHERE owner = \(clear.parameter(owner))"
                try session.run(clear.text, clear.binds)
            }
            guard case .objects(let targets) = snapshot.values[index], !targets.isEmpty else { continue }
            let references = try targets.map { try reference(of: $0) }
            var fill = SQLStatement()
            fill.text = """
                INSERT INTO \(name) (owner, position, target) \
                SELECT \(fill.parameter(owner)), ordinality, target FROM unnest(\(fill.parameter(references))::bigint[]) WITH ORDINALITY AS u(target, ordinality)
                """
            try session.run(fill.text, fill.binds)
        }
    }
}
