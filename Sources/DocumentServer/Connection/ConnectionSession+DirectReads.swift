import DocumentProtocol
import GraphCore
import JSONCore
import NIOCore

/// The fast paths of the two most frequent requests: a plain `get` of a few objects and a
/// plain `fetch` by one indexed equality, read straight from their lines (no JSON tree) and
/// answered on the connection's thread from the latest published state; and, over a bounded
/// cache, a plain `fetch` read from its line and handed to the engine, which runs it as SQL, as
/// is a plain `get` of objects the cache does not all hold (the engine reads them).
/// Each answer is byte for byte the one the general way gives; any other line goes the
/// general way.
extension ConnectionSession {
    /// The step of a line one of the fast paths takes, or nil when the line must go the
    /// general way: it is anything else, or the general way has more to do (authenticate, log
    /// each request, hand the request to a reader thread).
    /// `started`: when the line was read, to time the request (``RequestMeter``).
    func directRead(_ line: ByteBuffer, started: UInt64) -> Step? {
        guard authenticated, principal == nil, logger.logLevel > .debug else { return nil }  // a user with rules: the general way
        return line.withUnsafeReadableBytes { bytes -> Step? in
            let slot: Int
            let reply: (id: JSONValue, reply: Reply)?
            if let request = GetRequestLine.read(bytes) {
                guard let ids = directGetIDs(request, in: bytes) else { return nil }
                guard let found = shared.worker.reader.cachedGet(GetCall(ids: ids)) else {
                    return databaseGet(ids, id: Self.requestID(request.id, in: bytes), line: line, started: started)
                }
                slot = RequestMeter.getSlot
                reply = (Self.requestID(request.id, in: bytes), found)
            } else if let request = FetchRequestLine.read(bytes) {
                if !shared.worker.reader.state.isComplete { return databaseFetch(request, in: bytes, line: line, started: started) }
                slot = RequestMeter.fetchSlot
                reply = directFetch(request, in: bytes)
            } else {
                return nil
            }
            guard let reply else { return nil }
            // The parameters are read again only when the request was slow (for the slow log).
            shared.meter.record(slot: slot, ok: reply.reply.isResult, started: started, params: { (try? JSONValue.parse(bytes))?["params"] })
            return .finished(.answer(shared.encode(id: reply.id, reply.reply)))
        }
    }

    /// Over a bounded cache: the `fetch` the general way makes of the same line (``FetchCall/parse``),
    /// handed to the engine as it would hand it (the engine runs it as SQL); nil for anything
    /// the general way answers with an error (an unknown entity or result type, a predicate that
    /// does not parse), which it then answers.
    private func databaseFetch(_ request: FetchRequestLine, in bytes: UnsafeRawBufferPointer, line: ByteBuffer, started: UInt64) -> Step? {
        guard let entity = shared.model.entity(named: Self.text(bytes, request.entity)),
              let resultType = FetchCall.ResultType(rawValue: request.resultType.map { Self.text(bytes, $0) } ?? "objects") else { return nil }
        var fetch = FetchRequest(entityName: entity.name)
        let format = request.predicate.map { Self.text(bytes, $0) }
        if let format {
            guard let predicate = try? shared.predicates.predicate(format: format, arguments: Self.arguments(request, in: bytes)) else { return nil }
            fetch.predicate = predicate
        } else if !request.arguments.isEmpty {
            return nil  // arguments without a predicate: refused the general way
        }
        fetch.fetchLimit = request.limit ?? 0
        fetch.fetchOffset = request.offset ?? 0
        fetch.includesSubentities = true
        let call = FetchCall(request: fetch, resultType: resultType, explain: false, timeLimit: nil)
        let id = Self.requestID(request.id, in: bytes)
        let shared = self.shared
        return .store(.fetch(call)) { reply in
            let placed = PredicatePosition.placed(reply, in: format)
            // The parameters are read again only when the request was slow (for the slow log).
            shared.meter.record(slot: RequestMeter.fetchSlot, ok: placed.isResult, started: started,
                                params: { line.withUnsafeReadableBytes { (try? JSONValue.parse($0))?["params"] } })
            return .answer(shared.encode(id: id, placed))
        }
    }

    /// The predicate's arguments as the general way reads them (``WireValues/argument(_:model:path:)``).
    private static func arguments(_ request: FetchRequestLine, in bytes: UnsafeRawBufferPointer) -> [PredicateValue] {
        request.arguments.map { argument in
            switch argument {
            case .integer(let number): .value(.int(number))
            case .string(let range): .value(.string(text(bytes, range)))
            }
        }
    }

    /// The IDs of a `get` of at most ``inlineGetLimit`` IDs the ID reader takes; nil otherwise
    /// (the general way answers an ID's error).
    private func directGetIDs(_ request: GetRequestLine, in bytes: UnsafeRawBufferPointer) -> [ObjectID]? {
        guard request.ids.count <= Self.inlineGetLimit else { return nil }
        var ids: [ObjectID] = []
        ids.reserveCapacity(request.ids.count)
        for range in request.ids {
            guard let id = try? idReader.objectID(utf8: UnsafeRawBufferPointer(rebasing: bytes[range])) else { return nil }
            ids.append(id)
        }
        return ids
    }

    /// A `get` of objects a bounded cache does not all hold, handed to the engine as the general
    /// way hands the same line (``StoreWorker/submit(_:on:completion:)`` reads the misses on the
    /// connection's event loop). The general way would read the line again into a JSON tree,
    /// parse the call from it and look each ID up in the state again, only to hand over the same
    /// call: under uniformly random `get`s that was done for nine requests in ten.
    private func databaseGet(_ ids: [ObjectID], id: JSONValue, line: ByteBuffer, started: UInt64) -> Step {
        let shared = self.shared
        return .store(.get(GetCall(ids: ids))) { reply in
            // The parameters are read again only when the request was slow (for the slow log).
            shared.meter.record(slot: RequestMeter.getSlot, ok: reply.isResult, started: started,
                                params: { line.withUnsafeReadableBytes { (try? JSONValue.parse($0))?["params"] } })
            return .answer(shared.encode(id: id, reply))
        }
    }

    /// A `fetch` whose predicate is one equality an index answers with a few objects
    /// (``StoreReader/equalityFetch(_:of:limit:offset:resultType:)``); nil otherwise, and for
    /// any error (an unknown entity or result type, a predicate that does not parse), which
    /// the general way answers.
    private func directFetch(_ request: FetchRequestLine, in bytes: UnsafeRawBufferPointer) -> (id: JSONValue, reply: Reply)? {
        // A state without every object (a bounded cache) has no indexes to answer from: the
        // general way runs it as SQL, and reading the predicate here first was work thrown away.
        let reader = shared.worker.reader
        guard reader.state.isComplete, let format = request.predicate.map({ Self.text(bytes, $0) }),
              let entity = shared.model.entity(named: Self.text(bytes, request.entity)),
              let resultType = FetchCall.ResultType(rawValue: request.resultType.map { Self.text(bytes, $0) } ?? "objects") else { return nil }
        guard let predicate = try? shared.predicates.predicate(format: format, arguments: Self.arguments(request, in: bytes)),
              let reply = reader.equalityFetch(predicate, of: entity, limit: request.limit ?? 0, offset: request.offset ?? 0,
                                                             resultType: resultType)
        else { return nil }
        return (Self.requestID(request.id, in: bytes), reply)
    }

    /// The request's `id` from its text in the line (a plain string with its quotes, or an integer).
    static func requestID(_ range: Range<Int>, in bytes: UnsafeRawBufferPointer) -> JSONValue {
        let text = UnsafeRawBufferPointer(rebasing: bytes[range])
        return text.first == UInt8(ascii: "\"")
            ? .string(String(decoding: text.dropFirst().dropLast(), as: UTF8.self))
            : .number(String(decoding: text, as: UTF8.self))
    }

    private static func text(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}
