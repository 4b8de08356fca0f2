import DocumentProtocol
import GraphCore

extension StoreReader {
    /// The page of a fetch run as SQL (a bounded cache's state has no indexes and not every
    /// object): PostgreSQL answers the predicate where it translates, and sorts, pages and counts
    /// then too; the rest is judged, sorted and paged here, as for a state's objects.
    func databaseMatches(_ call: FetchCall, in database: DatabaseReads) throws -> Matches {
        let (result, plan, through) = try database.fetch(databaseRequest(of: call), explain: call.explain)
        // The answer may hold commits the state does not: the connection's next reads come from a
        // state that holds them (the writer takes them now).
        if through > state.sequence { _ = database.stateHolding(through) }
        if let whole = Self.matches(ofWhole: result, databasePlan: plan) { return whole }
        let examined = FetchPlan(access: .scan, isSortedByIndex: false, objectsExamined: result.snapshots.count)
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

    /// A `get` whose objects the state does not all hold, read in the caller's task with the
    /// misses of other requests (``LoopMisses``, on the connection's event loop) and handed to the
    /// writer to keep, as ``get(_:)`` does on a reader thread; nil when the state holds every one (a reader thread then
    /// answers it, without waiting for the database). `catchUp` returns the published state once
    /// the writer has taken the other servers' commits up to the one named (nil when it did not).
    func get(_ call: GetCall, with misses: LoopMisses, catchUp: (Int64) async -> ReadState?) async -> Reply? {
        guard let database else { return nil }
        let missed = call.ids.filter { $0.storeIdentifier == state.storeIdentifier && state.canonicalSnapshot(of: $0) == nil }
        guard !missed.isEmpty else { return nil }
        let found: [ObjectSnapshot], through: Int64
        do {
            (found, through) = try await misses.read(missed, readAt: state.sequence)
        } catch {
            return .error(.storeUnavailable(DatabaseReads.Failure(reason: "\(error)").description))
        }
        var loaded: [ObjectID: ObjectSnapshot] = [:]
        for snapshot in found { loaded[snapshot.objectID] = snapshot }  // IDs of one hierarchy are equal
        // As on a reader thread: the answer comes from a state that holds every commit what was read may hold.
        let newer = through > state.sequence ? await catchUp(through) ?? state : state
        let reader = StoreReader(state: newer, cache: cache, maximumAnswerBytes: maximumAnswerBytes, database: database, hits: hits)
        return reader.get(call, reading: true, loaded: loaded) ?? .error(.storeUnavailable("the objects could not be read"))
    }

    /// A fetch answered by one statement in the caller's task (``DatabaseFetcher``, on the
    /// connection's event loop); nil when one statement cannot answer it (a reader thread then
    /// does, ``databaseMatches(_:in:)``). `catchUp` returns once the writer has taken the other
    /// servers' commits up to the one named (or tried to).
    func fetch(_ call: FetchCall, with fetcher: any DatabaseFetcher, catchUp: (Int64) async -> ReadState?) async -> Reply? {
        do {
            guard let (result, through) = try await fetcher.fetchInOneStatement(databaseRequest(of: call)),
                  let whole = Self.matches(ofWhole: result, databasePlan: nil) else { return nil }
            // As on a reader thread: the connection's next reads come from a state that holds the
            // commits the answer holds.
            if through > state.sequence { _ = await catchUp(through) }
            return try answer(call, whole)
        } catch {
            let classified = DatabaseReads.classified(error)
            if let failure = classified as? DatabaseReads.Failure { return .error(.storeUnavailable(failure.description)) }
            return reply(to: classified, of: call)
        }
    }

    /// A fetch `key == value` (``LoopFetches/equality(of:)``) read together with the like
    /// fetches of other requests on the connection's event loop (``LoopFetches``), answered as
    /// ``fetch(_:with:catchUp:)`` answers it alone; nil for any other fetch, or when the fetcher
    /// cannot read it with others (that one then answers it).
    func fetchReadTogether(_ call: FetchCall, with fetches: LoopFetches, catchUp: (Int64) async -> ReadState?) async -> Reply? {
        guard let (equality, value) = LoopFetches.equality(of: call) else { return nil }
        do {
            guard let (found, through) = try await fetches.read(equality, value: value, limit: databaseResultBytesLimit) else { return nil }
            // As on a reader thread: the connection's next reads come from a state that holds the
            // commits the answer holds.
            if through > state.sequence { _ = await catchUp(through) }
            let examined = FetchPlan(access: .scan, isSortedByIndex: true, objectsExamined: found.count)
            return try answer(call, Matches(plan: examined, page: found[...], databasePlan: nil))
        } catch {
            let classified = DatabaseReads.classified(error)
            if let failure = classified as? DatabaseReads.Failure { return .error(.storeUnavailable(failure.description)) }
            return reply(to: classified, of: call)
        }
    }

    /// The request a fetch sends to the database: objects with their values (a count the
    /// database cannot make alone comes back as objects, counted here). A fetch of objects
    /// reads at most ``databaseResultBytesLimit`` bytes of rows.
    func databaseRequest(of call: FetchCall) -> FetchRequest {
        var request = call.request
        request.resultType = call.resultType == .count ? .count : .objects
        request.returnsObjectsAsFaults = false
        if call.resultType == .objects { request.resultBytesLimit = databaseResultBytesLimit }
        return request
    }

    /// The most bytes of rows a fetch of objects reads from the database: twice the largest
    /// answer. An object's answer takes more bytes than its row (its ID alone is about 60 bytes
    /// of JSON, 12 of row; a value's key and quotes come on top of it), so rows past this could
    /// not fit in an answer, and a fetch that matches millions of objects stops there instead of
    /// holding them all (``GraphCore/FetchRequest/resultBytesLimit``).
    private var databaseResultBytesLimit: Int {
        let (twice, overflow) = maximumAnswerBytes.multipliedReportingOverflow(by: 2)
        return overflow ? Int.max : twice
    }

    /// The matches of a result the database counted, or sorted and paged: the whole answer. Nil
    /// for a result left to sort and page here.
    private static func matches(ofWhole result: StoreFetchResult, databasePlan: String?) -> Matches? {
        if let count = result.count {
            return Matches(plan: FetchPlan(access: .scan), page: [], total: count, databasePlan: databasePlan)
        }
        guard result.isSortedAndPaged else { return nil }
        let examined = FetchPlan(access: .scan, isSortedByIndex: true, objectsExamined: result.snapshots.count)
        return Matches(plan: examined, page: result.snapshots[...], databasePlan: databasePlan)
    }
}
