import Foundation
import GraphCore
import JSONCore
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
            } catch PostgresStoreError.uniqueIndexViolated(let index, _) {
                throw try uniquenessViolation(index: index, among: inserted + updated)
            } catch PostgresStoreError.statementFailed(let state, _, _) where (state == "40P01" || state == "40001") && attempts < 3 {
                continue
            }
        }
        return SaveResult(permanentIDs: permanent, versions: versions, sequences: sequences)
    }

    /// The history rows of a save: one per part of its metadata, each naming the objects its
    /// part names (an object the save changed that no part names goes to the last part's), as
    /// inserted, deleted or updated (the parts' objects the save does not hold: updated).
    ///
    /// One dictionary access per object and part, and none more when the parts name every
    /// object the save changed (a server's saves do): a save of thousands of inserts pays for
    /// its history row little beside its rows.
    ///
    /// Each updated or deleted object of ``CommitMetadata/previousSnapshots`` has its previous
    /// values recorded (``PreviousValuesForm``) when the snapshot is at the version the save
    /// read (the version the database checks); the others have none.
    static func historyRows(of request: SaveChangesRequest) -> [HistoryRow] {
        let parts = request.metadata.parts
        guard !parts.isEmpty else { return [] }
        struct Entry {
            var kind: CommittedObject.Kind
            var snapshot: ObjectSnapshot
            var named = false
        }
        var entries: [ObjectID: Entry] = [:]
        entries.reserveCapacity(request.insertedObjects.count + request.updatedObjects.count + request.deletedObjects.count)
        for snapshot in request.updatedObjects { entries[snapshot.objectID] = Entry(kind: .updated, snapshot: snapshot) }
        for snapshot in request.insertedObjects { entries[snapshot.objectID] = Entry(kind: .inserted, snapshot: snapshot) }
        for snapshot in request.deletedObjects { entries[snapshot.objectID] = Entry(kind: .deleted, snapshot: snapshot) }
        let before = request.metadata.previousSnapshots
        let out = before.isEmpty ? nil : try? JSONGenerator()
        var namedCount = 0
        func add(_ id: ObjectID, kind: CommittedObject.Kind, snapshot: ObjectSnapshot?, to row: inout HistoryRow) {
            guard case .int(let reference) = id.referenceObject else { return }
            row.objects.append(CommittedObject(entity: id.entityName, reference: reference, kind: kind))
            var previous: String?
            if kind != .inserted, let out, let snapshot, let old = before[id], old.version == snapshot.version {
                previous = PreviousValuesForm.text(before: old, after: kind == .deleted ? nil : snapshot, out: out)
            }
            row.previous.append(previous)
        }
        var rows = parts.map { part in
            var row = HistoryRow(author: part.author, objects: [])
            row.objects.reserveCapacity(part.objects.count)
            for id in part.objects {
                var kind = CommittedObject.Kind.updated, snapshot: ObjectSnapshot?
                if let index = entries.index(forKey: id) {
                    kind = entries.values[index].kind
                    snapshot = entries.values[index].snapshot
                    if !entries.values[index].named {
                        entries.values[index].named = true
                        namedCount += 1
                    }
                }
                add(id, kind: kind, snapshot: snapshot, to: &row)
            }
            return row
        }
        if namedCount < entries.count {
            for snapshots in [request.insertedObjects, request.updatedObjects, request.deletedObjects] {
                for snapshot in snapshots where entries[snapshot.objectID]?.named == false {
                    if let kind = entries[snapshot.objectID]?.kind {
                        add(snapshot.objectID, kind: kind, snapshot: snapshot, to: &rows[parts.count - 1])
                    }
                }
            }
        }
        return rows
    }

    /// Writes the rows (set-based: a statement per table or entity, not per object), then the
    /// history rows of `history`, sent with the `COMMIT` (their numbers are returned).
    ///
    /// The rows of every object read, written or deleted are locked first, table by table in
    /// ID order, so that two servers' saves over the same objects lock them in one order.
    private func write(inserted: [ObjectSnapshot], updated: [ObjectSnapshot], deleted: [ObjectSnapshot], locked: [ObjectSnapshot],
                       history: [HistoryRow], time: Date, versions: inout [ObjectID: Int64]) throws -> [Int64] {
        let answer = try session.pipelinedTransaction {
            var seen = Set<ObjectID>()
            let lockedIDs = (locked + updated + deleted).map(\.objectID).filter { seen.insert($0).inserted }
            let current = lockedIDs.isEmpty ? [:] : try lockRows(lockedIDs)
            var conflicts: [Conflict] = []
            var named = Set<ObjectID>()
            func conflict(_ snapshot: ObjectSnapshot) {
                // An object both checked and written is named once.
                if named.insert(snapshot.objectID).inserted {
                    conflicts.append(Conflict(objectID: snapshot.objectID, expectedVersion: snapshot.version,
                                              currentVersion: current[snapshot.objectID]))
                }
            }
            for snapshot in locked where current[snapshot.objectID] != snapshot.version { conflict(snapshot) }
            // Rows already at another version are not written: their conflict is reported, and
            // the set-based statements below skip them (their WHERE names the version read).
            versions = try updateRows(updated.filter { current[$0.objectID] == $0.version })
            for snapshot in updated where versions[snapshot.objectID] == nil { conflict(snapshot) }
            let gone = try deleteRows(deleted.filter { current[$0.objectID] == $0.version })
            for snapshot in deleted where !gone.contains(snapshot.objectID) { conflict(snapshot) }
            if !conflicts.isEmpty { throw GraphError.conflict(conflicts) }
            try insertRows(inserted)
            try writeToManyRows(inserted: inserted, updated: updated)
            // Last: the history's lock is held only from here to COMMIT.
            return try CommitHistory.statement(for: history, time: time)
        }
        return try CommitHistory.numbers(in: answer, count: history.count)
    }

    /// The uniqueness violation a unique index refused, as GraphCore names it: the entity, the
    /// constraint's values and both objects. The set-based statement does not say which of its
    /// rows was refused: the culprit is two objects of the save with the same values, or else
    /// the first object of the save whose values another object in the database already has
    /// (the transaction was rolled back, so the database holds none of the save's rows).
    private func uniquenessViolation(index name: String, among saved: [ObjectSnapshot]) throws -> Error {
        let layout = try layout
        guard let index = layout.uniqueIndexes.first(where: { $0.name == name }) else {
            return PostgresStoreError.uniqueIndexViolated(index: name, statement: "(save)")
        }
        let candidates = saved.filter { index.kinds.contains($0.objectID.entityName) }
        func values(_ snapshot: ObjectSnapshot) -> [Value] { index.attributes.map { snapshot.value(forKey: $0) ?? .null } }
        var first: [[Value]: ObjectID] = [:]
        for snapshot in candidates {
            let key = values(snapshot)
            if let other = first[key] {
                return GraphError.uniquenessViolation(entity: index.entity, attributes: index.attributes, values: key,
                                                      objects: [other, snapshot.objectID])
            }
            first[key] = snapshot.objectID
        }
        for snapshot in candidates {
            if let other = try holder(of: values(snapshot), in: index, besides: snapshot) {
                return GraphError.uniquenessViolation(entity: index.entity, attributes: index.attributes, values: values(snapshot),
                                                      objects: [other, snapshot.objectID])
            }
        }
        return PostgresStoreError.uniqueIndexViolated(index: name, statement: "(save)")
    }

    /// The object in the database, other than `snapshot`'s, whose values of the index's attributes are `values`.
    private func holder(of values: [Value], in index: TableLayout.UniqueIndex, besides snapshot: ObjectSnapshot) throws -> ObjectID? {
        var statement = SQLStatement()
        var conditions: [String] = []
        for (name, value) in zip(index.attributes, values) {
            let type = snapshot.objectID.entity.property(named: name)?.attribute?.type
            conditions.append("t.\(TableLayout.quoted(name)) = \(try statement.parameter(value, as: type, entity: index.entity, key: name))")
        }
        conditions.append("t.\"_entity\" = ANY(\(statement.parameter(index.kinds)))")
        conditions.append("t.\"_id\" <> \(statement.parameter(try reference(of: snapshot.objectID)))")
        statement.text = "SELECT t.\"_id\", t.\"_entity\" FROM \(TableLayout.quoted(index.root)) t WHERE \(conditions.joined(separator: " AND ")) LIMIT 1"
        guard let row = try session.run(statement.text, statement.binds).first else { return nil }
        let cells = row.makeRandomAccess()
        guard let id = try ColumnReader.integer(cells[0], what: "_id"), let name = try ColumnReader.text(cells[1], what: "_entity"),
              let entity = model?.entity(named: name) else { return nil }
        return newObjectID(for: entity, referenceObject: .int(id))
    }

    private static func byReference(_ a: ObjectSnapshot, _ b: ObjectSnapshot) -> Bool {
        switch (a.objectID.referenceObject, b.objectID.referenceObject) {
        case (.int(let x), .int(let y)): return x < y
        default: return a.objectID.uriRepresentation < b.objectID.uriRepresentation
        }
    }
}
