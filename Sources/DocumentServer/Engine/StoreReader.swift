import DocumentProtocol
import GraphCore
import JSONCore

/// Answers `get` and `fetch` from one ``ReadState``: on any thread, in parallel with other
/// readers and with the writer, and always from that one state (a whole number of commits).
struct StoreReader {
    let state: ReadState
    /// Wire forms of objects, shared by every reader (checked against ``state``).
    let cache: WireObjectCache
    /// A fetch stops encoding its answer past this many bytes (``AnswerTooLarge``).
    let maximumAnswerBytes: Int
    /// For a state of a bounded cache (``ReadState/isComplete`` false): where the objects it does
    /// not hold are read, and every fetch runs. Nil: the state holds every object.
    var database: DatabaseReads? = nil
    /// For a state of a bounded cache: where the objects found in it are noted, for the budget to
    /// keep them (``CacheHits``).
    var hits: CacheHits? = nil

    /// `get`, filling the cache with the objects it encodes (objects a bounded cache does not
    /// hold are read from the database, on this thread).
    func get(_ call: GetCall) -> Reply {
        get(call, reading: true) ?? .error(.storeUnavailable("the objects could not be read"))
    }

    /// `get` when the state holds every object it names, for a connection's thread (which does
    /// not wait for the database); nil when a bounded cache misses one of them.
    func cachedGet(_ call: GetCall) -> Reply? {
        get(call, reading: false)
    }

    /// `loaded`: objects read from the database for this call already (nil: none were); an
    /// object neither the state nor they hold is missing then.
    func get(_ call: GetCall, reading: Bool, loaded: [ObjectID: ObjectSnapshot]? = nil) -> Reply? {
        do {
            // A bounded cache's state: each ID looked up once, for the misses and for the answer
            // (the lookups were a third of a hit's work in the reader, `docs/SCALING.md`).
            var held: [ObjectSnapshot?] = []
            if !state.isComplete, loaded == nil {
                held.reserveCapacity(call.ids.count)
                var missed: [ObjectID] = []
                for id in call.ids {
                    let snapshot = state.canonicalSnapshot(of: id)
                    held.append(snapshot)
                    if snapshot == nil, id.storeIdentifier == state.storeIdentifier { missed.append(id) }
                }
                if !missed.isEmpty {
                    guard reading, let database else { return nil }
                    let (found, through) = try database.load(missed, readAt: state.sequence)
                    // What was read may hold commits this state does not: the answer comes from a state
                    // that holds them too, so that the connection's next reads never go back in time.
                    let newer = through > state.sequence ? database.stateHolding(through) ?? state : state
                    let reader = StoreReader(state: newer, cache: cache, maximumAnswerBytes: maximumAnswerBytes, database: database, hits: hits)
                    return reader.get(call, reading: true, loaded: found)
                }
            }
            let loaded = loaded ?? [:]
            var objects: [WireObjectCache.Entry?] = []
            objects.reserveCapacity(call.ids.count)
            var answerBytes = 0
            let epoch = state.clearingEpoch
            let readable = call.readFilter(in: state)  // the user's rules (docs/SECURITY.md): others are missing
            for (index, id) in call.ids.enumerated() {
                let held = held.isEmpty ? state.canonicalSnapshot(of: id) : held[index]
                if let held, let hits { hits.note(held.objectID) }
                guard let stored = held ?? loaded[id].flatMap({ $0.objectID.entity.isKind(of: id.entity) ? $0 : nil }),
                      readable?(stored) ?? true else {
                    objects.append(nil)
                    continue
                }
                let entry = try wireEntry(for: stored, epoch: epoch)
                objects.append(entry)
                answerBytes += entry.bytes.count + 1
                if answerBytes > maximumAnswerBytes { return .error(.tooLarge(.answer, limit: maximumAnswerBytes)) }
            }
            return .result(call.result(objects))
        } catch let error as DatabaseReads.Failure {
            return .error(.storeUnavailable(error.description))
        } catch {
            return .error(.storeUnavailable("an object could not be encoded: \(error)"))
        }
    }

    /// The wire form of a stored object (dangling references cleared), from the cache or
    /// encoded and cached.
    ///
    /// A bounded cache's state (``ReadState/isComplete`` false) neither reads nor fills the wire
    /// cache: its budget holds objects only. A wire form is a second copy of an object; encoding
    /// it again costs a few microseconds, where an object the budget had to let go for it costs a
    /// read of the database (a few hundred). On 2,000,003 Songs with 64 MiB, a quarter of the
    /// budget for wire forms left room for 148,025 objects, and a `get` of a hot set of 200,000
    /// read 0.28 objects from the database; objects only, 197,377 fit and 0.10 were read
    /// (`docs/SCALING.md`).
    func wireEntry(for stored: ObjectSnapshot, epoch: Int64) throws -> WireObjectCache.Entry {
        let caches = state.isComplete
        if caches, let cached = cache.entry(for: stored, epoch: epoch) { return cached }
        let snapshot = state.dangling.isEmpty || !state.isComplete ? stored : state.dangling.cleared(stored) { state.exists($0) }
        let bytes = try JSONText.make { try WireObjectEncoder.write(snapshot, to: $0) }
        let entry = WireObjectCache.Entry(version: snapshot.version, bytes: bytes, epoch: epoch)
        if caches { cache.insert(entry, for: snapshot.objectID) }
        return entry
    }

    /// `fetch`: count, IDs or objects, on the state's snapshots.
    func fetch(_ call: FetchCall) -> Reply {
        do {
            if !state.isComplete, let database { return try answer(call, databaseMatches(call, in: database)) }
            return try answer(call, matches(call))
        } catch let error as DatabaseReads.Failure {
            return .error(.storeUnavailable(error.description))
        } catch {
            return reply(to: error, of: call)
        }
    }

    /// How many index entries a fetch answered on a connection's thread may visit. Few: the
    /// event loop answers one request at a time, where reader threads answer several at once
    /// (the 20 most played, answered on the event loop, came at half the rate of the readers'
    /// on 2 cores; an equality with one match came at the same rate for 27 % less CPU).
    static let quickFetchEntries = 8

    /// The answer of `fetch` when it is sure to be quick, for a connection's thread: an index
    /// answers the whole predicate within ``quickFetchEntries`` entries (an equality on a
    /// unique attribute, the few first of an indexed order). Nil otherwise, or when the
    /// fetch fails: a reader thread then answers it (and its error) the general way.
    func quickFetch(_ call: FetchCall) -> Reply? {
        guard state.isComplete else { return nil }  // a bounded cache: a fetch runs as SQL, on a reader thread
        do {
            let fetch = try SnapshotFetch(call.request, model: state.model, resolve: { [state] in state.storedSnapshot(of: $0) })
            guard let found = try fetch.indexed(state.indexes, included: included(by: fetch).names, lookup: state.lookup(ofEntity:),
                                                visitingAtMost: Self.quickFetchEntries) else { return nil }
            return try answer(call, indexedMatches(found, of: call.request, fetch))
        } catch {
            return nil
        }
    }

    /// The answer of a `fetch` whose predicate is one indexed equality (see
    /// ``SnapshotIndexes/equalityMatches(_:ofEntity:atMost:)``), the same as ``fetch(_:)``
    /// gives, for a connection's thread: the request's parts come from a line read without a
    /// JSON tree (``FetchRequestLine``) and the fetch is not planned. Nil when the predicate is
    /// not such an equality or more than ``quickFetchEntries`` objects match: the general way
    /// answers it then.
    func equalityFetch(_ predicate: Predicate, of entity: EntityDescription, limit: Int, offset: Int,
                       resultType: FetchCall.ResultType) -> Reply? {
        guard state.isComplete, let found = state.indexes.equalityMatches(predicate, ofEntity: entity, atMost: Self.quickFetchEntries) else { return nil }
        let snapshot = state.lookup(ofEntity: entity.name)
        var matches: [ObjectSnapshot] = []
        matches.reserveCapacity(found.references.count)
        for reference in found.references {
            guard let match = snapshot(reference) else { return nil }
            matches.append(match)
        }
        var request = FetchRequest(entityName: entity.name)
        request.predicate = predicate
        request.fetchLimit = limit
        request.fetchOffset = offset
        return try? answer(FetchCall(request: request, resultType: resultType),
                           Matches(plan: found.plan, page: Self.paged(request, Self.inReferenceOrder(matches))))
    }

    /// What a fetch found: the page of its answer, how, and (for a count without a predicate,
    /// where the objects are not gathered) the count.
    struct Matches {
        var plan: FetchPlan
        var page: ArraySlice<ObjectSnapshot>
        var total: Int?
        /// How the database answered a fetch run as SQL (``databaseMatches(_:in:)``), for `explain`.
        var databasePlan: String?
    }

    /// The concrete entities `fetch` includes, and the names of those holding objects.
    private func included(by fetch: SnapshotFetch) -> (entities: [EntityDescription], names: [String]) {
        let entities = state.model.entities.filter { !$0.isAbstract && fetch.includes($0) }
        return (entities, entities.map(\.name).filter { !state.objects(ofEntity: $0).isEmpty })
    }

    /// The page of the answer: through an index, counted, or by a scan.
    func matches(_ call: FetchCall) throws -> Matches {
        let state = self.state
        let fetch = try SnapshotFetch(call.request, model: state.model, resolve: { state.storedSnapshot(of: $0) })
        let (entities, names) = included(by: fetch)
        let request = call.request
        if let found = try fetch.indexed(state.indexes, included: names, lookup: state.lookup(ofEntity:)) {
            return try indexedMatches(found, of: request, fetch)
        }
        if call.resultType == .count, !fetch.hasPredicate {
            let count = entities.reduce(0) { $0 + state.objects(ofEntity: $1.name).count }
            var total = count - min(max(0, request.fetchOffset), count)
            if request.fetchLimit > 0 { total = min(total, request.fetchLimit) }
            return Matches(plan: FetchPlan(access: .scan, objectsExamined: count), page: [], total: total)
        }
        var examined = 0
        // An unsorted page (in reference order): the first offset + limit kept while scanning.
        let wanted = max(0, request.fetchOffset).addingReportingOverflow(request.fetchLimit)
        if call.resultType != .count, request.sortDescriptors.isEmpty, request.fetchLimit > 0, !wanted.overflow {
            var first = FirstByReference(wanted.partialValue)
            for entity in entities {
                let objects = state.objects(ofEntity: entity.name)
                examined += objects.count
                for snapshot in objects where try fetch.matches(snapshot) { first.offer(snapshot) }
            }
            return Matches(plan: FetchPlan(access: .scan, objectsExamined: examined), page: Self.paged(request, first.sorted()))
        }
        var matches: [ObjectSnapshot] = []
        for entity in entities {
            let objects = state.objects(ofEntity: entity.name)
            examined += objects.count
            for snapshot in objects where try fetch.matches(snapshot) { matches.append(snapshot) }
        }
        return Matches(plan: FetchPlan(access: .scan, objectsExamined: examined),
                       page: Self.paged(request, call.resultType == .count ? matches : try ordered(matches, fetch)))
    }

    /// The page of what an index found.
    private func indexedMatches(_ found: (snapshots: [ObjectSnapshot], plan: FetchPlan), of request: FetchRequest,
                                _ fetch: SnapshotFetch) throws -> Matches {
        Matches(plan: found.plan, page: found.plan.isSortedByIndex ? found.snapshots[...] : Self.paged(request, try ordered(found.snapshots, fetch)))
    }

    /// The answer to `call`: its count, IDs or objects (and its plan, with `explain`).
    func answer(_ call: FetchCall, _ found: Matches) throws -> Reply {
        let count = found.total ?? found.page.count
        let explain = call.explain
        switch call.resultType {
        case .objects:
            // Objects as `get` sends them: from the shared cache of wire forms.
            var bytes = Array(#"{"objects":["#.utf8)
            let epoch = state.clearingEpoch
            for (index, snapshot) in found.page.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes += try wireEntry(for: snapshot, epoch: epoch).bytes
                if bytes.count > maximumAnswerBytes { return .error(.tooLarge(.answer, limit: maximumAnswerBytes)) }
            }
            bytes.append(UInt8(ascii: "]"))
            if explain {
                bytes += Array(#","plan":"#.utf8)
                bytes += try JSONText.make { try FetchPlanEncoder.writeValue(found.plan, database: found.databasePlan, to: $0) }
            }
            bytes.append(UInt8(ascii: "}"))
            return .result(bytes)
        case .ids, .count:
            let maximumAnswerBytes = self.maximumAnswerBytes
            return .result { out in
                try out.openObject()
                if call.resultType == .count {
                    try out.string("count")
                    try out.integer(Int64(count))
                } else {
                    try out.string("ids")
                    try out.openArray()
                    for snapshot in found.page {
                        try WireObjectEncoder.writeURI(snapshot.objectID, to: out)
                        if out.bufferedCount > maximumAnswerBytes { throw AnswerTooLarge(limit: maximumAnswerBytes) }
                    }
                    try out.closeArray()
                }
                if explain { try FetchPlanEncoder.write(found.plan, database: found.databasePlan, to: out) }
                try out.closeObject()
            }
        }
    }

    /// The error answer of a fetch that failed.
    func reply(to error: any Error, of call: FetchCall) -> Reply {
        switch error {
        case let error as GraphCore.PredicateError:
            var answer = RPCError.invalidParams("params.predicate", error.description, position: error.offset)
            answer.predicateSubject = PredicatePosition.subject(of: error)
            return .error(answer)
        case let error as GraphError:
            switch error {
            case .unknownKey, .wrongKind, .typeMismatch:
                return .error(.invalidParams("params", error.description))
            case .timeLimitExceeded(let entity):
                return .error(.timeLimitExceeded(entity: entity, limit: call.timeLimit))
            case .resultTooLarge:
                // The database's rows passed the limit ``databaseResultBytesLimit`` sets from the
                // answer's: the answer would have passed its own.
                return .error(.tooLarge(.answer, limit: maximumAnswerBytes))
            default:
                return .error(.storeUnavailable("the fetch failed: \(error)"))
            }
        default:
            return .error(.storeUnavailable("the fetch failed: \(error)"))
        }
    }

    /// Every match in the answer's order: the request's sort, ties (and an unsorted fetch) by
    /// reference, so that an answer is the same whichever way the matches were found.
    private func ordered(_ matches: [ObjectSnapshot], _ fetch: SnapshotFetch) throws -> [ObjectSnapshot] {
        try fetch.sorted(Self.inReferenceOrder(matches))
    }

    /// `matches` by reference (unchanged when they already are).
    static func inReferenceOrder(_ matches: [ObjectSnapshot]) -> [ObjectSnapshot] {
        let inOrder = zip(matches, matches.dropFirst()).allSatisfy { !WireObjectEncoder.referenceOrder($1.objectID, $0.objectID) }
        return inOrder ? matches : matches.sorted { WireObjectEncoder.referenceOrder($0.objectID, $1.objectID) }
    }

    /// The page `offset`/`limit` of the request picks from `items`.
    static func paged(_ request: FetchRequest, _ items: [ObjectSnapshot]) -> ArraySlice<ObjectSnapshot> {
        let start = min(max(0, request.fetchOffset), items.count)
        // The limit counts from `start`, at most `items.count`: no sum that could overflow.
        let end = request.fetchLimit > 0 ? start + min(request.fetchLimit, items.count - start) : items.count
        return items[start..<end]
    }
}
