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

    /// `get`, filling the cache with the objects it encodes.
    func get(_ call: GetCall) -> Reply {
        do {
            var objects: [WireObjectCache.Entry?] = []
            objects.reserveCapacity(call.ids.count)
            var answerBytes = 0
            let epoch = state.clearingEpoch
            for id in call.ids {
                guard let stored = state.canonicalSnapshot(of: id) else {
                    objects.append(nil)
                    continue
                }
                let entry = try wireEntry(for: stored, epoch: epoch)
                objects.append(entry)
                answerBytes += entry.bytes.count + 1
                if answerBytes > maximumAnswerBytes { return .error(.tooLarge(.answer, limit: maximumAnswerBytes)) }
            }
            return .result(call.result(objects))
        } catch {
            return .error(.storeUnavailable("an object could not be encoded: \(error)"))
        }
    }

    /// The wire form of a stored object (dangling references cleared), from the cache or
    /// encoded and cached.
    private func wireEntry(for stored: ObjectSnapshot, epoch: Int64) throws -> WireObjectCache.Entry {
        if let cached = cache.entry(for: stored, epoch: epoch) { return cached }
        let snapshot = state.dangling.isEmpty ? stored : state.dangling.cleared(stored) { state.exists($0) }
        let bytes = try JSONText.make { try WireObjectEncoder.write(snapshot, to: $0) }
        let entry = WireObjectCache.Entry(version: snapshot.version, bytes: bytes, epoch: epoch)
        cache.insert(entry, for: snapshot.objectID)
        return entry
    }

    /// `fetch`: count, IDs or objects, on the state's snapshots.
    func fetch(_ call: FetchCall) -> Reply {
        do {
            let state = self.state
            let fetch = try SnapshotFetch(call.request, model: state.model, resolve: { state.storedSnapshot(of: $0) })
            let entities = state.model.entities.filter { !$0.isAbstract && fetch.includes($0) }
            let included = entities.map(\.name).filter { !state.objects(ofEntity: $0).isEmpty }
            let request = call.request
            var plan: FetchPlan
            var page: ArraySlice<ObjectSnapshot>
            var total: Int?  // for a count without a predicate: the objects are not gathered
            if let found = try fetch.indexed(state.indexes, included: included) {
                plan = found.plan
                page = found.plan.isSortedByIndex ? found.snapshots[...] : try paged(request, ordered(found.snapshots, fetch))
            } else if call.resultType == .count, !fetch.hasPredicate {
                let count = entities.reduce(0) { $0 + state.objects(ofEntity: $1.name).count }
                plan = FetchPlan(access: .scan, objectsExamined: count)
                page = []
                total = count - min(max(0, request.fetchOffset), count)
                if request.fetchLimit > 0, let remaining = total { total = min(remaining, request.fetchLimit) }
            } else {
                var matches: [ObjectSnapshot] = []
                var examined = 0
                for entity in entities {
                    let objects = state.objects(ofEntity: entity.name)
                    examined += objects.count
                    for snapshot in objects where try fetch.matches(snapshot) { matches.append(snapshot) }
                }
                plan = FetchPlan(access: .scan, objectsExamined: examined)
                page = try paged(request, call.resultType == .count ? matches : ordered(matches, fetch))
            }
            let count = total ?? page.count
            let objects = call.resultType == .objects
            let explain = call.explain
            if objects {
                // Objects as `get` sends them: from the shared cache of wire forms.
                var bytes = Array(#"{"objects":["#.utf8)
                let epoch = state.clearingEpoch
                for (index, snapshot) in page.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    bytes += try wireEntry(for: snapshot, epoch: epoch).bytes
                    if bytes.count > maximumAnswerBytes { return .error(.tooLarge(.answer, limit: maximumAnswerBytes)) }
                }
                bytes.append(UInt8(ascii: "]"))
                if explain {
                    bytes += Array(#","plan":"#.utf8)
                    bytes += try JSONText.make { try FetchPlanEncoder.writeValue(plan, to: $0) }
                }
                bytes.append(UInt8(ascii: "}"))
                return .result(bytes)
            }
            return .result { out in
                try out.openObject()
                if call.resultType == .count {
                    try out.string("count")
                    try out.integer(Int64(count))
                } else {
                    try out.string(objects ? "objects" : "ids")
                    try out.openArray()
                    for snapshot in page {
                        if !objects {
                            try out.string(snapshot.objectID.uriRepresentation)
                        } else {
                            let cleared = state.dangling.isEmpty ? snapshot : state.dangling.cleared(snapshot) { state.exists($0) }
                            try WireObjectEncoder.write(cleared, to: out)
                        }
                        if out.bufferedCount > maximumAnswerBytes { throw AnswerTooLarge(limit: maximumAnswerBytes) }
                    }
                    try out.closeArray()
                }
                if explain { try FetchPlanEncoder.write(plan, to: out) }
                try out.closeObject()
            }
        } catch let error as GraphCore.PredicateError {
            var answer = RPCError.invalidParams("params.predicate", error.description, position: error.offset)
            answer.predicateSubject = PredicatePosition.subject(of: error)
            return .error(answer)
        } catch let error as GraphError {
            switch error {
            case .unknownKey, .wrongKind, .typeMismatch:
                return .error(.invalidParams("params", error.description))
            case .timeLimitExceeded(let entity):
                return .error(.timeLimitExceeded(entity: entity, limit: call.timeLimit))
            default:
                return .error(.storeUnavailable("the fetch failed: \(error)"))
            }
        } catch {
            return .error(.storeUnavailable("the fetch failed: \(error)"))
        }
    }

    /// Every match in the answer's order: the request's sort, ties (and an unsorted fetch) by
    /// reference, so that an answer is the same whichever way the matches were found.
    private func ordered(_ matches: [ObjectSnapshot], _ fetch: SnapshotFetch) throws -> [ObjectSnapshot] {
        let inOrder = zip(matches, matches.dropFirst()).allSatisfy { !WireObjectEncoder.referenceOrder($1.objectID, $0.objectID) }
        let byReference = inOrder ? matches : matches.sorted { WireObjectEncoder.referenceOrder($0.objectID, $1.objectID) }
        return try fetch.sorted(byReference)
    }

    /// The page `offset`/`limit` of the request picks from `items`.
    private func paged(_ request: FetchRequest, _ items: [ObjectSnapshot]) -> ArraySlice<ObjectSnapshot> {
        let start = min(max(0, request.fetchOffset), items.count)
        // The limit counts from `start`, at most `items.count`: no sum that could overflow.
        let end = request.fetchLimit > 0 ? start + min(request.fetchLimit, items.count - start) : items.count
        return items[start..<end]
    }
}
