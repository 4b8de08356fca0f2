import DocumentProtocol
import Foundation
import GraphCore
import Logging

/// The engine for a database several servers share (a ``SharedDatabaseStore``, such as the
/// PostgreSQL store): the same writer, readers and feed as for a file, kept up to date with the
/// other servers' commits.
///
/// Every save writes one history row per save in its transaction (the store's shared history,
/// numbered in commit order by all servers together). A server takes the commits it did
/// not make from that history (``catchUp(through:)``): before a read whose state is older than
/// the database's last commit, before its own commit's number is published, and when the
/// poller sees a new commit. Each commit's objects are read back from the database, the next
/// state is published and its change set goes to the feed, as for a commit of its own.
extension StoreGraph {
    /// Takes every commit after the state's that the history table holds when asked (up to
    /// `through`, when given): reads the objects each one changed, publishes the state after
    /// it, and hands its change set to the feed. Does nothing for a store nobody else writes to.
    ///
    /// - Throws: the store's error when the database cannot be read (the state stays at
    ///   the last commit taken).
    func catchUp(through limit: Int64? = nil) throws {
        guard let history = sharedHistory else { return }
        while true {
            // After this server's own commit, with no other server's commit before it (the
            // usual case), there is nothing to ask the database.
            if let limit, state.sequence >= limit { return }
            let commits = try history.commits(after: state.sequence, through: limit, limit: Self.catchUpBatch)
            guard let first = commits.first else { return }
            // Numbers are gap-free: a later first commit means the ones between were removed
            // from the history (`docserver compact --history-commits`) before this server took them.
            guard first.sequence == state.sequence + 1 else {
                let hole = HistoryHole(after: state.sequence, first: first.sequence)
                historyHole = hole
                throw hole
            }
            let now = try committedObjects(of: commits)
            let recorded = RecordedChanges(of: commits, now: now, model: model, storeIdentifier: store.identifier)
            var sets: [ChangeSet] = []
            for (number, commit) in commits.enumerated() {
                let before = state
                var ids: [(ObjectID, ChangeSet.Kind)] = []
                for object in commit.objects {
                    guard let entity = model.entity(named: object.entity) else { continue }
                    let id = ObjectID(entity: entity, storeIdentifier: store.identifier, reference: .int(object.reference))
                    let kind: ChangeSet.Kind = switch object.kind {
                    case .inserted: .inserted
                    case .updated: .updated
                    case .deleted: .deleted
                    }
                    ids.append((id, kind))
                }
                sharedSequence = commit.sequence
                // (A bounded cache refreshes the objects it holds; the others are read when asked for.)
                _ = publishCommit(changes: ids.map { id, _ in (id, now[id]) }, refreshingOnly: true)
                cache.remove(ids.map(\.0))
                let after = state
                // The objects as this commit left them and as they were before it, from the
                // values its writer recorded (exact, even for an object this server does not
                // hold); where none were recorded, from the states (before: the object when
                // this server held it, else unknown).
                let changes = ids.map { id, kind in
                    let recordedBefore = recorded.before(id, commit: number), recordedAfter = recorded.after(id, commit: number)
                    return ChangeSet.Change(id: id, kind: kind,
                                            before: kind == .inserted ? nil : recordedBefore ?? before.storedSnapshot(of: id),
                                            after: kind == .deleted ? nil : recordedAfter ?? after.storedSnapshot(of: id) ?? now[id])
                }
                sets.append(ChangeSet(sequence: commit.sequence, author: commit.author, timestamp: commit.time, changes: changes,
                                      stateBefore: before, stateAfter: after))
            }
            feed?.publish(sets, state: state)
            // A short batch was everything the history held when asked: a later commit comes
            // with its own notification. (Asking again would cost every catch-up a round trip.)
            if commits.count < Self.catchUpBatch { return }
        }
    }

    /// Commits read from the history per query of a catch-up.
    static let catchUpBatch = 500

    /// The objects `commits` changed, as the database holds them now, read together (a statement
    /// per table, not a query per object); a deleted object is not in the answer.
    private func committedObjects(of commits: [StoreCommit]) throws -> [ObjectID: ObjectSnapshot] {
        var seen = Set<ObjectID>()
        var ids: [ObjectID] = []
        for commit in commits {
            for object in commit.objects {
                guard let entity = model.entity(named: object.entity) else { continue }
                let id = ObjectID(entity: entity, storeIdentifier: store.identifier, reference: .int(object.reference))
                if seen.insert(id).inserted { ids.append(id) }
            }
        }
        guard let database = store as? any SharedDatabaseStore else { return [:] }
        var found: [ObjectID: ObjectSnapshot] = [:]
        for snapshot in try database.committedSnapshots(of: ids) { found[snapshot.objectID] = snapshot }
        return found
    }

    /// The objects as this writer read them before the commit under way: its state's (a
    /// bounded cache holds every object a save changes: the save read it, and nothing is let go
    /// before the commit), for the history's previous values (``CommitMetadata/previousSnapshots``).
    func previousSnapshots(of objects: [ManagedObject]) -> [ObjectID: ObjectSnapshot] {
        var found: [ObjectID: ObjectSnapshot] = [:]
        found.reserveCapacity(objects.count)
        for object in objects {
            if let snapshot = state.storedSnapshot(of: object.objectID) { found[object.objectID] = snapshot }
        }
        return found
    }

    /// After a commit numbered `sequences` (its ``SaveResult/sequences``) was written: takes the
    /// other servers' commits numbered before it, so that this one follows them, and returns the
    /// state before it; nil for a store nobody else writes to.
    func finishSharedCommit(sequences: [Int64]) -> ReadState? {
        guard sharedHistory != nil, let first = sequences.first, let last = sequences.last else { return nil }
        do {
            try catchUp(through: first - 1)
        } catch {
            // The commits before it could not be read: this one is published without a number
            // of its own (the state keeps the last number taken), and the next catch-up reads
            // them and it from the history table.
            return state
        }
        sharedSequence = last
        return state
    }

    /// The change sets the feed starts with: the newest commits of the history table, each
    /// object before and after its commit rebuilt from the objects as they are now and the
    /// values each commit recorded (``RecordedChanges``); where none were recorded, the object
    /// as it is now, and nothing before (the states of their time are not kept).
    func sharedChangeSets() -> [ChangeSet] {
        guard let history = sharedHistory, sharedHistoryCommits > 0 else { return [] }
        let from = max(0, state.sequence - Int64(sharedHistoryCommits))
        guard let commits = try? history.commits(after: from, through: state.sequence, limit: sharedHistoryCommits) else { return [] }
        var now: [ObjectID: ObjectSnapshot] = [:]
        if isCacheBounded {
            // The state holds nothing yet: the objects the history names are read now (a
            // statement per table), judged as read, and kept as far as the cache allows.
            now = (try? committedObjects(of: commits)) ?? [:]
            keep(Array(now.values))
            evictOverflow()
            publisher.publish(state)
        } else {
            for object in commits.flatMap(\.objects) {
                guard let entity = model.entity(named: object.entity) else { continue }
                let id = ObjectID(entity: entity, storeIdentifier: store.identifier, reference: .int(object.reference))
                if let snapshot = state.storedSnapshot(of: id) { now[id] = snapshot }
            }
        }
        let recorded = RecordedChanges(of: commits, now: now, model: model, storeIdentifier: store.identifier)
        return commits.enumerated().map { number, commit in
            ChangeSet(sequence: commit.sequence, author: commit.author, timestamp: commit.time, changes: commit.objects.compactMap { object in
                guard let entity = model.entity(named: object.entity) else { return nil }
                let id = ObjectID(entity: entity, storeIdentifier: store.identifier, reference: .int(object.reference))
                let kind: ChangeSet.Kind = object.kind == .inserted ? .inserted : object.kind == .deleted ? .deleted : .updated
                return ChangeSet.Change(id: id, kind: kind, before: kind == .inserted ? nil : recorded.before(id, commit: number),
                                        after: kind == .deleted ? nil : recorded.after(id, commit: number) ?? now[id])
            }, stateBefore: nil, stateAfter: nil)
        }
    }

    /// Logs a catch-up that failed (the reads waiting for it answer that the database cannot be
    /// read); a hole in the history, which stays, is logged once.
    func logFailedCatchUp(_ error: any Error) {
        if error is HistoryHole {
            guard !reportedHistoryHole else { return }
            reportedHistoryHole = true
        }
        logger.error("cannot read the commits of other servers from the database", metadata: ["error": "\(error)"])
    }
}

/// The shared history no longer holds commits this server has not taken: they were removed
/// (`docserver compact --history-commits`) while it was behind. It cannot follow the database
/// any more: its state stays at the last commit it took, and it must be restarted.
struct HistoryHole: Error, CustomStringConvertible {
    let after: Int64
    let first: Int64

    var description: String {
        "the history table no longer holds commits \(after + 1) to \(first - 1) (removed by docserver compact while this server "
            + "was behind): this server cannot follow the database; restart it"
    }
}
