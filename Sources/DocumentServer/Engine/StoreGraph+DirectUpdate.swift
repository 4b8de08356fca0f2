import DocumentProtocol
import Foundation
import GraphCore

/// Saves that only set attributes of existing objects in a store file (the commonest save: a
/// counter, a title, a status), staged without contexts.
///
/// The general way (``stage(_:reply:)``) applies a save in a child context of the graph's
/// context and pushes it up: two sets of managed objects, faulted in, changed, validated, then
/// read out again as snapshots for the store. An update of attributes needs none of what the
/// contexts are for (inverses, delete rules, inserted objects' IDs): here each object's new
/// snapshot is made from the one the store holds, checked as a context would check it
/// (``ObjectSnapshot/validationFailures()``), and handed to the store as it is, in one
/// ``SaveChangesRequest`` for the group. Every answer and error is the one the general way
/// gives (`DirectUpdateTests` runs both ways side by side).
///
/// A group is committed one way or the other. A save of the general way that comes while
/// direct ones are staged moves them into the context first (``moveDirectUpdatesIntoContext()``),
/// and the group goes on the general way; while saves of the general way are staged, an update
/// of attributes is staged the general way too. Mixed saves therefore share a durable write as
/// before, and only groups of direct updates alone skip the contexts. Not for a shared database (its
/// versions, conflicts and catching up go through the context's commit), attributes that are
/// transient or derived, or entities with uniqueness constraints (those saves commit alone).
extension StoreGraph {
    /// Whether every change `call` makes is an attribute of an existing object, each object
    /// named once, in a store file.
    func updatesAttributesOnly(_ call: SaveCall) -> Bool {
        guard call.inserts.isEmpty, call.deletes.isEmpty, !call.updates.isEmpty,
              sharedHistory == nil, !isCacheBounded, store is AtomicStore else { return false }
        if call.updates.count > 1, Set(call.updates.map(\.id)).count != call.updates.count { return false }
        for update in call.updates {
            let entity = update.id.entity
            for (key, assignment) in update.values {
                guard case .attribute = assignment, let index = entity.index(ofProperty: key),
                      case .attribute(let attribute) = entity.properties[index],
                      !attribute.isTransient, attribute.derivationExpression == nil else { return false }
            }
        }
        return true
    }

    /// Stages a save of ``updatesAttributesOnly(_:)``: its objects' new snapshots go to
    /// ``direct``, committed by the next ``commit(resetting:)``. Answers at once when it fails
    /// (nothing changed), with the error the general way would give.
    func stageDirectly(_ call: SaveCall, reply: @escaping @Sendable (Reply) -> Void) {
        // A staged save of the same objects goes first, so that every version a client is told
        // belongs to exactly one save.
        if !touched.isEmpty && call.anyExistingID(touched.contains) {
            commit(resetting: false)
        }
        if let conflict = conflicts(of: call) {
            reply(.error(conflict))
            return
        }
        var changed: [ObjectSnapshot] = []
        var nullFailures: [ValidationFailure] = []
        var checked: [ValidationFailure] = []
        for update in call.updates {
            // The object exists at the version named (`conflicts(of:)`): this is the store's own.
            guard let read = storedSnapshot(of: update.id) else {
                reply(.error(.invalidParams("params", "the save cannot be applied: \(GraphError.objectNotFound(update.id))")))
                return
            }
            let entity = read.objectID.entity
            var values = read.values
            for (key, assignment) in update.values {
                guard case .attribute(let value) = assignment, let index = entity.index(ofProperty: key),
                      case .attribute(let attribute) = entity.properties[index] else { continue }
                // null for a required attribute is a validation failure, as a missing value is.
                if value.isNull, !attribute.isOptional {
                    nullFailures.append(ValidationFailure(objectID: update.id, key: key, reason: .missingValue))
                    continue
                }
                guard let converted = value.converted(to: attribute.type) else {
                    let mismatch = GraphError.typeMismatch(entity: entity.name, key: key, expected: attribute.type.rawValue, got: value.kindName)
                    reply(.error(.invalidParams("params", "the save cannot be applied: \(mismatch)")))
                    return
                }
                values[index] = converted
            }
            // An object whose values come back to the stored ones is not changed (nor checked).
            guard values != read.values else { continue }
            let snapshot = ObjectSnapshot(objectID: read.objectID, version: read.version, values: values)
            checked += snapshot.validationFailures()
            changed.append(snapshot)
        }
        let failures = Self.failures(nulls: nullFailures, checked: checked)
        if !failures.isEmpty {
            reply(.error(validationError(failures, inserted: [])))
            return
        }
        let ids = call.updates.map(\.id)
        if let exhausted = numbersExhausted(inserts: [], updated: ids) {
            reply(.error(exhausted))
            return
        }
        if let refusal = answerRefusal(call, implicitlyUpdated: [], deleted: []) {
            reply(.error(refusal))
            return
        }
        staged.append(StagedSave(inserted: [], explicitlyUpdated: ids, implicitlyUpdated: [], deleted: [],
                                 author: call.author, call: call, reply: reply))
        direct += changed
        touched.formUnion(ids)
    }

    /// Moves the saves staged directly into ``context``, as if they had been staged the general
    /// way: each object faulted into the context and given its new values (checked already), so
    /// that a save of the general way joins their group. False, with the context as it was, when
    /// an object cannot be faulted in (the caller then commits them).
    func moveDirectUpdatesIntoContext() -> Bool {
        do {
            for snapshot in direct {
                let object = try context.existingObject(with: snapshot.objectID)
                for (index, property) in snapshot.objectID.entity.properties.enumerated() {
                    guard case .attribute = property, index < snapshot.values.count else { continue }
                    try object.setValue(snapshot.values[index], forKey: property.name)  // unchanged: no change
                }
            }
        } catch {
            context.rollback()  // it held no other save's changes: direct ones never sit beside them
            return false
        }
        direct = []
        return true
    }

    /// Commits saves staged directly: ``direct`` in one request to the store (one journal record
    /// per save that changes something, one append), then publishes and answers as a commit of
    /// the context does.
    func commitDirectly(_ saves: [StagedSave]) {
        let updates = direct
        direct = []
        // The context may hold objects of an earlier commit of this turn, which these change
        // (and whose versions the answers would read).
        context.reset()
        let changedIDs = Set(updates.map(\.objectID))
        let changes = saves.map { $0.objects.contains(where: changedIDs.contains) }
        let time = ChangeSet.milliseconds(Date())
        let parts = zip(saves, changes).filter { $0.1 }.map { CommitPart(author: $0.0.author, objects: $0.0.objects) }
        let before = state
        let result: SaveResult
        do {
            result = try coordinator.execute(SaveChangesRequest(updatedObjects: updates,
                                                                metadata: CommitMetadata(time: time, parts: parts)))
        } catch let error as GraphError {
            // The versions were checked against this store on this thread: a conflict is not
            // expected, but answered as the general way answers it.
            let answer: RPCError
            if case .conflict(let conflicts) = error { answer = .conflict(conflicts) } else {
                answer = .storeUnavailable("the store could not be written: \(error)")
            }
            for save in saves { save.reply(.error(answer)) }
            return
        } catch {
            for save in saves { save.reply(.error(.storeUnavailable("the store could not be written: \(error)"))) }
            return
        }
        let saved = updates.map { snapshot in
            (id: snapshot.objectID, snapshot: Optional(ObjectSnapshot(
                objectID: snapshot.objectID,
                version: result.versions[snapshot.objectID] ?? ObjectContext.nextVersion(after: snapshot.version),
                values: snapshot.values)))
        }
        publishAndAnswer(saves, changing: changes, changed: saved, before: before, time: time, sequences: result.sequences)
    }
}
