import GraphCore

extension StoreReader {
    /// The page of a fetch run as SQL (a bounded cache's state has no indexes and not every
    /// object): PostgreSQL answers the predicate where it translates, and sorts, pages and counts
    /// then too; the rest is judged, sorted and paged here, as for a state's objects.
    func databaseMatches(_ call: FetchCall, in database: DatabaseReads) throws -> Matches {
        var request = call.request
        // A count the database cannot make alone comes back as objects, counted here.
        request.resultType = call.resultType == .count ? .count : .objects
        request.returnsObjectsAsFaults = false
        let (result, plan, through) = try database.fetch(request, explain: call.explain)
        // The answer may hold commits the state does not: the connection's next reads come from a
        // state that holds them (the writer takes them now).
        if through > state.sequence { _ = database.stateHolding(through) }
        if let count = result.count {
            return Matches(plan: FetchPlan(access: .scan), page: [], total: count, databasePlan: plan)
        }
        let examined = FetchPlan(access: .scan, isSortedByIndex: result.isSortedAndPaged, objectsExamined: result.snapshots.count)
        if result.isSortedAndPaged {
            return Matches(plan: examined, page: result.snapshots[...], databasePlan: plan)
        }
        // A sort by a key path (`album.title`) reads the related objects: from the state, else
        // from the database, once each.
        let state = self.state
        final class Loaded { var objects: [ObjectID: ObjectSnapshot?] = [:] }
        let loaded = Loaded()
        let fetch = try SnapshotFetch(call.request, model: state.model, resolve: { id in
            if let held = state.storedSnapshot(of: id) { return held }
            if let known = loaded.objects[id] { return known }
            let found = try database.load([id], readAt: state.sequence).objects[id]
            loaded.objects[id] = found
            return found
        })
        let ordered = call.resultType == .count ? result.snapshots : try fetch.sorted(Self.inReferenceOrder(result.snapshots))
        return Matches(plan: examined, page: Self.paged(call.request, ordered), databasePlan: plan)
    }
}
