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
                let entry: WireObjectCache.Entry
                if let cached = cache.entry(for: stored, epoch: epoch) {
                    entry = cached
                } else {
                    let snapshot = state.dangling.isEmpty ? stored : state.dangling.cleared(stored) { state.exists($0) }
                    let bytes = try JSONText.make { try WireObjectEncoder.write(snapshot, to: $0) }
                    entry = WireObjectCache.Entry(version: snapshot.version, bytes: bytes, epoch: epoch)
                    cache.insert(entry, for: snapshot.objectID)
                }
                objects.append(entry)
                answerBytes += entry.bytes.count + 1
                if answerBytes > maximumAnswerBytes { return .error(.tooLarge(.answer, limit: maximumAnswerBytes)) }
            }
            return .result(call.result(objects))
        } catch {
            return .error(.storeUnavailable("an object could not be encoded: \(error)"))
        }
    }

    /// `fetch`: count, IDs or objects, on the state's snapshots.
    func fetch(_ call: FetchCall) -> Reply {
        do {
            let state = self.state
            let fetch = try SnapshotFetch(call.request, model: state.model, resolve: { state.storedSnapshot(of: $0) })
            let entities = state.model.entities.filter { !$0.isAbstract && fetch.includes($0) }
            switch call.resultType {
            case .count:
                // The number of objects the same fetch would return: after offset, at most limit.
                var total = 0
                for entity in entities {
                    let objects = state.objects(ofEntity: entity.name)
                    if !fetch.hasPredicate {
                        total += objects.count
                        continue
                    }
                    for snapshot in objects where try fetch.matches(snapshot) { total += 1 }
                }
                let remaining = total - min(max(0, call.request.fetchOffset), total)
                let count = call.request.fetchLimit > 0 ? min(remaining, call.request.fetchLimit) : remaining
                return .result { out in
                    try out.openObject()
                    try out.string("count")
                    try out.integer(Int64(count))
                    try out.closeObject()
                }
            case .ids, .objects:
                var matches: [ObjectSnapshot] = []
                for entity in entities {
                    for snapshot in state.objects(ofEntity: entity.name) where try fetch.matches(snapshot) { matches.append(snapshot) }
                }
                let page = try paged(call.request, call.request.sortDescriptors.isEmpty
                    ? matches.sorted { WireObjectEncoder.referenceOrder($0.objectID, $1.objectID) }
                    : fetch.sorted(matches))
                let objects = call.resultType == .objects
                return .result { out in
                    try out.openObject()
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
                    try out.closeObject()
                }
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

    /// The page `offset`/`limit` of the request picks from `items`.
    private func paged(_ request: FetchRequest, _ items: [ObjectSnapshot]) -> ArraySlice<ObjectSnapshot> {
        let start = min(max(0, request.fetchOffset), items.count)
        // The limit counts from `start`, at most `items.count`: no sum that could overflow.
        let end = request.fetchLimit > 0 ? start + min(request.fetchLimit, items.count - start) : items.count
        return items[start..<end]
    }
}
