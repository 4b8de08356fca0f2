import DocumentProtocol
import Foundation
import GraphCore
import JSONCore

/// A save that passed every check and sits in the graph's context, waiting for the
/// durable write that will make it real.
///
/// A class: a commit passes its saves through several lists (the saves that change something,
/// their parts, their answers), and a reference is one retain where this value's dozen fields
/// were a dozen, for every save, in every list. Used on the writer thread only.
final class StagedSave {
    /// Temporary ID → the inserted object (its ID is permanent once staged).
    let inserted: [(temporaryID: String, object: ManagedObject)]
    let explicitlyUpdated: [ObjectID]
    /// Changed by inverses or delete rules, not named by the request.
    let implicitlyUpdated: [ObjectID]
    let deleted: [ObjectID]
    /// The commit's author (the `client` of the connection's `hello`).
    let author: String?
    /// The request, as it came: staged again when a group commit to a shared database fails
    /// for another save's conflict (``StoreGraph/commitWithout(conflicting:of:)``).
    let call: SaveCall
    let reply: @Sendable (Reply) -> Void
    /// The versions the request named for the objects it updates or deletes: on a shared
    /// database the store checks them in the save's transaction (another server may have saved
    /// them since they were checked here: ``CommitMetadata/readVersions``).
    var checkedVersions: [ObjectID: Int64] = [:]

    /// Every object the save inserts, changes or deletes, once each, in that order (made once:
    /// a commit reads it several times per save).
    let objects: [ObjectID]

    init(inserted: [(temporaryID: String, object: ManagedObject)], explicitlyUpdated: [ObjectID], implicitlyUpdated: [ObjectID],
         deleted: [ObjectID], author: String?, call: SaveCall, reply: @escaping @Sendable (Reply) -> Void) {
        self.inserted = inserted
        self.explicitlyUpdated = explicitlyUpdated
        self.implicitlyUpdated = implicitlyUpdated
        self.deleted = deleted
        self.author = author
        self.call = call
        self.reply = reply
        var seen = Set<ObjectID>()
        objects = (inserted.map(\.object.objectID) + explicitlyUpdated + implicitlyUpdated + deleted).filter { seen.insert($0).inserted }
    }
}

extension StoreGraph {
    /// Checks and applies one save in a child context and pushes it into ``context``;
    /// answers at once when it fails (nothing changed), else at the next ``commit()``.
    ///
    /// Saves that share no object share one commit. A save touching an object an earlier
    /// staged save touched commits the earlier ones first, so that every version a client
    /// is told belongs to exactly one save.
    func stage(_ named: SaveCall, reply: @escaping @Sendable (Reply) -> Void) {
        // A server that cannot follow the shared database any more writes nothing: its state
        // would miss other servers' commits, and its answers' numbers would be wrong.
        if let historyHole {
            reply(.error(.storeUnavailable("\(historyHole)")))
            return
        }
        // A bounded cache reads the objects the save names from the database, together.
        if isCacheBounded {
            databaseFailure = nil
            do {
                try preload(named.namedIDs + named.referencedIDs)
            } catch {
                reply(.error(.storeUnavailable("the database cannot be read: \(error)")))
                return
            }
        }
        // Each ID the save names as the store holds it (an ID may name an ancestor entity): a save
        // whose IDs all name their objects as they are (the usual case: ``canonical(_:)`` gives
        // each back) is kept as it came, without a copy.
        let call = !isCacheBounded && named.allExistingIDs(exists) ? named : named.mappingIDs { self.canonical($0) ?? $0 }
        // The store checks uniqueness constraints when it writes: a save that may break one
        // commits alone, so that its refusal never fails the saves it would share a commit with.
        // (On a shared database, a conflict with another server's save is found only when the
        // group is written: ``commitWithout(conflicting:of:)`` then fails that save only.)
        let alone = touchesUniquenessConstraints(call)
        // Updates of attributes alone become the store's snapshots without a context
        // (StoreGraph+DirectUpdate), unless saves of this way are staged already: a group goes
        // one way or the other.
        if !alone, stagesDirectUpdates, staged.isEmpty || !direct.isEmpty, updatesAttributesOnly(call) {
            stageDirectly(call, reply: reply)
            return
        }
        // Updates staged directly join this save's group through the context.
        if !direct.isEmpty, alone || !moveDirectUpdatesIntoContext() {
            commit(resetting: false)
        }
        // Nothing staged: nothing to look for (listing the references of a save of 5,000 inserts
        // cost 2% of its CPU).
        if alone || (!touched.isEmpty && call.anyExistingID(touched.contains)) {
            commit(resetting: false)
        }
        defer { if alone { commit(resetting: false) } }
        // On a shared database, an object named at a version newer than this server holds was
        // saved through another server whose commit has not reached this one yet: take the other
        // servers' commits first (after the saves staged so far), rather than answer a conflict
        // that is none. (The store checks every version in the save's transaction all the same.)
        if sharedHistory != nil, namesNewerVersions(call) {
            commit(resetting: false)
            do { try catchUp() } catch { logFailedCatchUp(error) }
        }
        let conflict = conflicts(of: call)
        if let failure = databaseFailure {
            reply(.error(.storeUnavailable("the database cannot be read: \(failure)")))
            return
        }
        if let conflict {
            reply(.error(conflict))
            return
        }
        let child = context.newChildContext()
        do {
            var inserted: [(temporaryID: String, object: ManagedObject)] = []
            var temporaries: [String: ManagedObject] = [:]
            for insert in call.inserts {
                let object = try child.insert(insert.entity.name)
                inserted.append((insert.temporaryID, object))
                temporaries[insert.temporaryID] = object
            }
            var missing: [String] = []
            let resolve = { (reference: SaveCall.Reference) throws -> ManagedObject? in
                switch reference {
                case .temporary(let temporaryID, _):
                    return temporaries[temporaryID]
                case .existing(let id, _):
                    if self.snapshot(of: id) != nil, let object = try? child.existingObject(with: id) { return object }
                    missing.append(id.uriRepresentation)
                    return nil
                }
            }
            // null for a required attribute is a validation failure, as a missing value is:
            // an insert keeps the value unset (and validation reports it), an update reports it here.
            var nullFailures: [ValidationFailure] = []
            for (insert, (_, object)) in zip(call.inserts, inserted) {
                try assign(insert.values, to: object, resolve: resolve, reportingNulls: false, in: &nullFailures)
            }
            for update in call.updates {
                try assign(update.values, to: try child.existingObject(with: update.id), resolve: resolve, reportingNulls: true, in: &nullFailures)
            }
            if !missing.isEmpty {
                reply(.error(.notFound(missing, "related objects do not exist")))
                return
            }
            for delete in call.deletes {
                try child.delete(try child.existingObject(with: delete.id))
            }
            let named = Set(call.namedIDs)
            let changed = child.updatedObjects.filter { !named.contains($0.objectID) }
            let deleted = child.deletedObjects
            let changedIDs = Set(changed.map(\.objectID)).union(deleted.map(\.objectID))
            if !changedIDs.isDisjoint(with: touched) { commit(resetting: false) }  // the child still uses the context's objects

            let failures = Self.failures(nulls: nullFailures, checked: child.validationFailures())
            if !failures.isEmpty {
                reply(.error(validationError(failures, inserted: inserted)))
                return
            }
            if let exhausted = numbersExhausted(inserts: call.inserts.map(\.entity.name), updated: call.updates.map(\.id) + changed.map(\.objectID)) {
                reply(.error(exhausted))
                return
            }
            // Refused now rather than applied and then answered with an error (SaveAnswer).
            if let refusal = answerRefusal(call, implicitlyUpdated: changed.map(\.objectID), deleted: deleted.map(\.objectID)) {
                reply(.error(refusal))
                return
            }
            if let failure = databaseFailure {
                reply(.error(.storeUnavailable("the database cannot be read: \(failure)")))
                return
            }
            try child.save()
            let staged = StagedSave(inserted: inserted, explicitlyUpdated: call.updates.map(\.id),
                                    implicitlyUpdated: changed.map(\.objectID), deleted: deleted.map(\.objectID),
                                    author: call.author, call: call, reply: reply)
            if sharedHistory != nil {
                for (id, version) in call.updates.map({ ($0.id, $0.version) }) + call.deletes.map({ ($0.id, $0.version) }) {
                    staged.checkedVersions[id] = version
                }
            }
            touched.formUnion(changedIDs)
            touched.formUnion(named)
            touched.formUnion(inserted.map(\.object.objectID))
            self.staged.append(staged)
        } catch GraphError.validation(let failures) {
            reply(.error(validationError(failures, inserted: [])))
        } catch let error as RPCError {
            reply(.error(error))
        } catch {
            reply(.error(.invalidParams("params", "the save cannot be applied: \(error)")))
        }
    }

    /// Writes every staged save with one durable save of the store, publishes the state
    /// after it, then answers them all: with their IDs, versions and the commit's number,
    /// or (when the write fails) with `store unavailable`. Either way the context forgets
    /// every object afterwards, unless `resetting` is false (a save being staged still
    /// holds objects of it).
    func commit(resetting: Bool = true) {
        defer { if resetting { context.reset() } }
        guard !staged.isEmpty else { return }
        let saves = staged
        staged = []
        touched = []
        if !direct.isEmpty {
            commitDirectly(saves)
            return
        }
        let changed = (context.insertedObjects + context.updatedObjects + context.deletedObjects).map(\.objectID)
        let deleted = Set(context.deletedObjects.map(\.objectID))
        // A save that changes nothing is no commit, alone or beside others (docs/PROTOCOL.md,
        // hello): no record, no number, no notification; it is answered with the latest commit.
        let changedSet = Set(changed)
        let changes = saves.map { $0.objects.contains(where: changedSet.contains) }
        let committing = zip(saves, changes).filter { $0.1 }.map { $0.0 }
        // One commit per save that changes something, each with its author and number (one
        // journal record each, in one append; one history row each): the commit's metadata.
        let time = ChangeSet.milliseconds(Date())
        var metadata = CommitMetadata(time: time, parts: committing.map { CommitPart(author: $0.author, objects: $0.objects) },
                                      readVersions: saves.reduce(into: [:]) { all, save in
                                          all.merge(save.checkedVersions) { first, _ in first }
                                      })
        // A database other servers share records what the commit replaced: with it they judge
        // the commit on objects their caches do not hold (docs/POSTGRESQL.md, history).
        if sharedHistory != nil { metadata.previousSnapshots = previousSnapshots(of: context.updatedObjects + context.deletedObjects) }
        var before = state
        let result: SaveResult
        do {
            result = try context.save(metadata: metadata)
        } catch let error as GraphError {
            let names = UniquenessAnswer.temporaryNames(of: saves)
            context.rollback()
            let answer: RPCError
            if case .conflict(let conflicts) = error, saves.count > 1 {
                commitWithout(conflicting: conflicts, of: saves)
                return
            } else if case .conflict(let conflicts) = error {
                // Another server saved one of the objects since this server read it.
                answer = .conflict(conflicts)
            } else if case .uniquenessViolation(let entity, let attributes, _, let objects) = error {
                // Only a save committed alone gets here (`stage`): the refusal is its own.
                answer = UniquenessAnswer.error(entity: entity, attributes: attributes, objects: objects,
                                                description: error.description, names: names)
            } else {
                answer = .storeUnavailable("the store could not be written: \(error)")
            }
            for save in saves { save.reply(.error(answer)) }
            return
        } catch {
            context.rollback()
            for save in saves { save.reply(.error(.storeUnavailable("the store could not be written: \(error)"))) }
            return
        }
        if !committing.isEmpty, let caughtUp = finishSharedCommit(sequences: result.sequences) { before = caughtUp }
        publishAndAnswer(saves, changing: changes, changed: changed.map { id in (id, deleted.contains(id) ? nil : savedSnapshot(of: id)) },
                before: before, time: time, sequences: result.sequences)
    }

    /// After a durable commit: publishes the state with `changed` (each object as the store now
    /// holds it, nil when deleted), hands the change sets to the feed and answers every save,
    /// each with its own commit number when the store wrote one record per save. `changes`
    /// says which saves change something: a save that changes nothing is no commit, alone or
    /// beside others (docs/PROTOCOL.md, hello): no record, no number, no notification; it is
    /// answered with the latest commit.
    func publishAndAnswer(_ saves: [StagedSave], changing changes: [Bool], changed: ReadState.Changes,
                 before: ReadState, time: Date, sequences: [Int64]) {
        let committing = zip(saves, changes).filter { $0.1 }.map { $0.0 }
        guard !committing.isEmpty else {
            let latest = state.sequence
            for save in saves { save.reply(.result { out in try self.writeResult(of: save, sequence: latest, to: out) }) }
            return
        }
        let sequence = publishCommit(changes: changed, commits: committing.count)
        EngineMeters.shared.committed(saves: saves.count, commits: committing.count)
        let changedIDs = changed.map(\.id)
        // Not needed for correctness (a reader checks an entry's version): frees the memory now.
        cache.remove(changedIDs)
        let sets = changeSets(of: committing, changed: changedIDs, before: before, time: time, sequences: sequences)
        feed?.publish(sets, state: state)
        // Each save has its own commit number when the store wrote one record per save.
        let ownNumbers = sets.count == committing.count
        var index = 0
        for (save, changesSomething) in zip(saves, changes) {
            var number = sequence
            if changesSomething {
                if ownNumbers { number = sets[index].sequence }
                index += 1
            }
            save.reply(.result { out in try self.writeResult(of: save, sequence: number, to: out) })
        }
    }

    // MARK: - Helpers

    /// Whether the save inserts or updates an object of an entity that has (or inherits) a
    /// uniqueness constraint.
    private func touchesUniquenessConstraints(_ call: SaveCall) -> Bool {
        func constrained(_ entity: EntityDescription?) -> Bool {
            var current = entity
            while let entity = current {
                if !entity.uniquenessConstraints.isEmpty { return true }
                current = entity.parent
            }
            return false
        }
        guard model.entities.contains(where: { !$0.uniquenessConstraints.isEmpty }) else { return false }
        return call.inserts.contains { constrained($0.entity) } || call.updates.contains { constrained($0.id.entity) }
    }

    /// A save the store could not number: an updated object at the largest version, or no
    /// reference left for the inserted objects. Checked before staging, so that the commit
    /// (shared with other saves) never fails for it.
    func numbersExhausted(inserts: [String], updated: [ObjectID]) -> RPCError? {
        for id in updated {
            if let version = snapshot(of: id)?.version, version == Int64.max {
                return .invalidParams("params.update", GraphError.versionExhausted(id, version: version).description)
            }
        }
        if let entity = inserts.first, let atomic = store as? AtomicStore {
            let needed = Int64(exactly: inserts.count) ?? Int64.max
            if atomic.nextReference < 1 || atomic.nextReference.addingReportingOverflow(needed).overflow {
                let error = GraphError.referencesExhausted(store: atomic.url?.path ?? atomic.identifier, entity: entity,
                                                           nextReference: atomic.nextReference)
                return .invalidParams("params.insert", error.description)
            }
        }
        return nil
    }

    /// Optimistic locking: every updated or deleted object must be at the version the client read.
    /// Whether the call names an object this server does not hold, or at a newer version.
    private func namesNewerVersions(_ call: SaveCall) -> Bool {
        (call.updates.map { ($0.id, $0.version) } + call.deletes.map { ($0.id, $0.version) }).contains { id, version in
            (snapshot(of: id)?.version ?? 0) < version
        }
    }

    func conflicts(of call: SaveCall) -> RPCError? {
        var conflicts: [(id: String, expected: Int64, current: Int64?)] = []
        for (id, version) in call.updates.map({ ($0.id, $0.version) }) + call.deletes.map({ ($0.id, $0.version) }) {
            let current = snapshot(of: id)?.version
            if current != version { conflicts.append((id.uriRepresentation, version, current)) }
        }
        return conflicts.isEmpty ? nil : .conflict(conflicts)
    }

    private func assign(_ values: [(key: String, value: SaveCall.Assignment)], to object: ManagedObject,
                        resolve: (SaveCall.Reference) throws -> ManagedObject?,
                        reportingNulls: Bool, in nullFailures: inout [ValidationFailure]) throws {
        for (key, assignment) in values {
            switch assignment {
            case .attribute(let value):
                if value.isNull, case .attribute(let attribute)? = object.entity.property(named: key), !attribute.isOptional {
                    if reportingNulls { nullFailures.append(ValidationFailure(objectID: object.objectID, key: key, reason: .missingValue)) }
                    continue
                }
                try object.setValue(value, forKey: key)
            case .toOne(let reference):
                try object.setObject(try reference.flatMap(resolve), forKey: key)
            case .toMany(let references):
                var objects: [ManagedObject] = []
                for reference in references {
                    if let related = try resolve(reference) { objects.append(related) }
                }
                try object.setObjects(objects, forKey: key)
            }
        }
    }

    /// A save's validation failures: the nulls given to required attributes (which kept their
    /// values), then what the check of the changed objects found on other keys.
    static func failures(nulls: [ValidationFailure], checked: [ValidationFailure]) -> [ValidationFailure] {
        nulls + checked.filter { failure in !nulls.contains { $0.objectID == failure.objectID && $0.key == failure.key } }
    }

    func validationError(_ failures: [ValidationFailure], inserted: [(temporaryID: String, object: ManagedObject)]) -> RPCError {
        .validation(failures.map { failure in
            let temporary = inserted.first { $0.object.objectID == failure.objectID }?.temporaryID
            return (temporary ?? failure.objectID.uriRepresentation, failure.objectID.entityName, failure.key, Self.reason(failure.reason))
        })
    }

    static func reason(_ reason: ValidationFailure.Reason) -> String {
        switch reason {
        case .missingValue: return "is required but nil"
        case .wrongType(let expected, let got): return "must be \(expected), not \(got)"
        case .tooFew(let minimum, let count): return "holds \(count) objects, fewer than its minimum \(minimum)"
        case .tooMany(let maximum, let count): return "holds \(count) objects, more than its maximum \(maximum)"
        case .ruleBroken(let how): return how
        case .deleteDenied(let blocking):
            return "denies the deletion while it holds " + blocking.prefix(5).map(\.uriRepresentation).joined(separator: ", ")
        }
    }

    /// The version a commit just gave an object: read from the context's object (the commit's
    /// answer is written before the context forgets it), else from the state (or, a bounded
    /// cache having let it go already, the database).
    private func savedVersion(of id: ObjectID) -> Int64 {
        context.savedSnapshot(of: id)?.version ?? snapshot(of: id)?.version ?? 0
    }

    private func writeResult(of save: StagedSave, sequence: Int64, to out: JSONGenerator) throws {
        var answer = SaveAnswer(sequence: sequence)
        // Each inserted object's URI made once, for its ID and its version.
        let insertedURIs = save.inserted.map { $0.object.objectID.uriRepresentation }
        answer.ids = zip(save.inserted, insertedURIs).map { ($0.temporaryID, $1) }
        answer.versions = zip(save.inserted, insertedURIs).map { inserted, uri in (uri, savedVersion(of: inserted.object.objectID)) }
            + (save.explicitlyUpdated + save.implicitlyUpdated).map { id in (id.uriRepresentation, savedVersion(of: id)) }
        answer.deleted = save.deleted.map(\.uriRepresentation)
        answer.updated = save.implicitlyUpdated.map(\.uriRepresentation)
        try answer.write(to: out)
    }
}

extension SaveCall {
    /// The same save with every existing object's ID passed through `transform`.
    func mappingIDs(_ transform: (ObjectID) -> ObjectID) -> SaveCall {
        func mapped(_ values: [(key: String, value: Assignment)]) -> [(key: String, value: Assignment)] {
            values.map { key, assignment in
                switch assignment {
                case .attribute: return (key, assignment)
                case .toOne(let reference): return (key, .toOne(reference.map { $0.mappingID(transform) }))
                case .toMany(let references): return (key, .toMany(references.map { $0.mappingID(transform) }))
                }
            }
        }
        var call = SaveCall()
        call.answerLimit = answerLimit
        call.inserts = inserts.map { Insert(temporaryID: $0.temporaryID, entity: $0.entity, values: mapped($0.values)) }
        call.updates = updates.map { Update(id: transform($0.id), version: $0.version, values: mapped($0.values)) }
        call.deletes = deletes.map { Delete(id: transform($0.id), version: $0.version) }
        call.author = author
        return call
    }
}

extension SaveCall.Reference {
    func mappingID(_ transform: (ObjectID) -> ObjectID) -> SaveCall.Reference {
        if case .existing(let id, let path) = self { return .existing(transform(id), path: path) }
        return self
    }
}
