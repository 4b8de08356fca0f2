import DocumentProtocol
import GraphCore
import JSONCore
import Logging
import NIOCore

/// One connection's conversation: it turns each line into the line to answer (if any),
/// keeps whether the client has authenticated, and spots HTTP.
///
/// What can be answered at once (errors, `ping`, `hello`, `model`, a `get` of a few
/// objects, a `fetch` an index answers in a few steps, from the latest published state) is
/// answered on the connection's event loop;
/// the rest is a ``StoreJob`` for the engine (fetches on reader threads, saves on the
/// writer). Not `Sendable`: it belongs to its connection, which runs one request at a time.
final class ConnectionSession {
    /// What to do after a line.
    enum Outcome: Sendable {
        /// Send these bytes (a line without its `\n`), or nothing.
        case answer([UInt8]?)
        /// Send these bytes, if any, then close the connection.
        case answerAndClose([UInt8]?)
    }

    /// How a line is handled.
    enum Step {
        case finished(Outcome)
        /// Needs the engine: run the job, then `finish` turns its reply into the outcome.
        case store(StoreJob, finish: (Reply) -> Outcome)
        /// A batch: handled by ``handleBatch(_:)``.
        case batch([JSONValue])
        /// A `hello` whose secret needs the slow hash: run the check off the event loop
        /// (``SecretCheck/principal(on:)``), then `finish` on the connection's thread.
        case hello(SecretCheck, finish: (Principal?) -> Outcome)
        /// A `fetch` answered in parts (``StoreWorker/stream(_:on:lineLimit:send:)``): its parts
        /// written under `id` as they come, then `finish` turns the last line's reply into the outcome.
        case stream(FetchCall, id: JSONValue, finish: (Reply) -> Outcome)
    }

    /// A `get` of at most this many IDs is answered on the connection's thread; a larger
    /// one goes to a reader thread, so that it does not hold the event loop.
    static let inlineGetLimit = 64

    let shared: SharedState
    let logger: Logger
    var authenticated: Bool
    private var sawFirstLine = false
    /// The `client` of the connection's `hello`: the author of its saves.
    var author: String?
    /// The user of the connection's `hello` (docs/SECURITY.md); nil: every grant (no users
    /// file, or the `--auth-token` user).
    var principal: Principal?
    /// The reload of the users file ``principal`` was looked up at.
    var principalGeneration = 0
    /// What ``principal`` may read, made once per reload.
    var readAccessCache: ReadAccess?
    /// The client's IP address, for the hello throttle.
    var address = "unknown"
    /// How long the handler waits before it sends a closing answer (a failed `hello`'s,
    /// ``HelloThrottle``); taken once.
    var closingAnswerDelay: TimeAmount?

    /// Reads the IDs of the connection's `get` requests (remembering the store key and entity).
    var idReader: ObjectIDReader
    /// Where the connection's subscriptions write (nil without a channel: no subscriptions).
    var sink: SubscriptionSink?

    init(shared: SharedState, logger: Logger) {
        self.shared = shared
        self.logger = logger
        authenticated = !shared.access.required
        idReader = ObjectIDReader(model: shared.model)
    }

    /// The first step for a line.
    func begin(_ line: ByteBuffer) -> Step {
        if line.readableBytesView.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .finished(.answer(nil)) }
        if !sawFirstLine {
            sawFirstLine = true
            if HTTPDetection.looksLikeHTTP(line) {
                logger.warning("closing a connection that speaks HTTP (a browser or an HTTP client, not a docserver client)")
                return .finished(.answerAndClose(nil))
            }
        }
        let started = RequestMeter.now()
        if let step = directRead(line, started: started) { return step }
        if let step = directSave(line, started: started) { return step }
        let message: JSONValue
        do {
            message = try line.withUnsafeReadableBytes { try JSONValue.parse($0, maximumDepth: 128) }
        } catch {
            shared.meter.record(slot: RequestMeter.otherSlot, ok: false, started: started, params: { nil })
            return .finished(.answer(Self.parseErrorAnswer(error, logger: logger)))
        }
        guard case .array(let elements) = message else {
            switch request(message, batchRemaining: nil, started: started) {
            case .answered(let bytes, let close):
                return .finished(close ? .answerAndClose(bytes) : .answer(bytes))
            case .hello(let check, let id, let finish):
                let shared = self.shared
                return .hello(check) { principal in
                    let (reply, close) = finish(principal)
                    let bytes = id.map { shared.encode(id: $0, reply) }
                    return close ? .answerAndClose(bytes) : .answer(bytes)
                }
            case .store(let job, let id, let adjust, let answerChecked):
                let shared = self.shared
                return .store(job) { reply in
                    let adjusted = adjust(reply)  // once, answered or not: it times the request
                    // A save's answer was bounded before it was applied: never replaced by an error now.
                    return .answer(id.map { answerChecked ? RPCResponse.encode(id: $0, adjusted) : shared.encode(id: $0, adjusted) })
                }
            case .stream(let call, let id, let adjust):
                let shared = self.shared
                return .stream(call, id: id) { .answer(shared.encode(id: id, adjust($0))) }
            }
        }
        guard !elements.isEmpty else {
            return .finished(.answer(RPCResponse.encode(id: .null, .error(.invalidRequest("a batch must hold at least one request")))))
        }
        guard elements.count <= shared.maximumBatchRequests else {
            logger.info("refused a batch of \(elements.count) requests", metadata: ["limit": "\(shared.maximumBatchRequests)"])
            return .finished(.answer(RPCResponse.encode(id: .null, .error(.tooLarge(.batch, limit: shared.maximumBatchRequests)))))
        }
        return .batch(elements)
    }

    /// The answer to a line that is not JSON.
    private static func parseErrorAnswer(_ error: any Error, logger: Logger) -> [UInt8] {
        switch error {
        case JSONError.invalidJSON(let offset, let lineNumber, let column, let reason):
            logger.debug("parse error", metadata: ["offset": "\(offset)", "reason": "\(LogText.escaped(reason))"])
            return RPCResponse.encode(id: .null, .error(.parseError(offset: offset, line: lineNumber, column: column, reason: reason)))
        case let error as JSONError:
            return RPCResponse.encode(id: .null, .error(.parseError(reason: error.description)))
        default:
            return RPCResponse.encode(id: .null, .error(.parseError(reason: "\(error)")))
        }
    }

    /// A batch: its requests one after another, their answers in one array. Once the
    /// answers reach ``SharedState/maximumBatchAnswerBytes``, the remaining requests are not
    /// run: each gets a `too large` error (notifications are dropped). A save is given what is
    /// left of the limit before it runs (``SharedState/saveAnswerLimit(id:batchRemaining:)``):
    /// one whose answer could pass it is refused unapplied, and so are the requests after it.
    func handleBatch(_ elements: [JSONValue]) async -> Outcome {
        var answers: [[UInt8]] = []
        var answerBytes = 0
        var close = false
        for element in elements {
            if answerBytes >= shared.maximumBatchAnswerBytes {
                if let id = Self.requestID(element) {
                    answers.append(RPCResponse.encode(id: id, .error(.tooLarge(.batchAnswer, limit: shared.maximumBatchAnswerBytes))))
                }
                continue
            }
            var answer: [UInt8]?
            var answerChecked = false
            var refusedForTheBatch = false
            switch request(element, batchRemaining: shared.maximumBatchAnswerBytes - answerBytes - 1, started: RequestMeter.now()) {
            case .answered(let bytes, let closeAfter):
                answer = bytes
                close = closeAfter
            case .store(let job, let id, let adjust, let checked):
                let reply = adjust(await shared.worker.perform(job))
                answerChecked = checked
                if checked, case .error(let error) = reply, error == .tooLarge(.batchAnswer, limit: shared.maximumBatchAnswerBytes) {
                    refusedForTheBatch = true
                }
                answer = id.map { checked ? RPCResponse.encode(id: $0, reply) : shared.encode(id: $0, reply) }
            case .hello(let check, let id, let finish):
                let (reply, closeAfter) = finish(await check.principal())
                answer = id.map { shared.encode(id: $0, reply) }
                close = closeAfter
            case .stream(_, let id, _):
                // Refused in a batch by ``dispatch(_:batchRemaining:)``; never run here.
                answer = RPCResponse.encode(id: id, .error(Self.streamInBatch))
            }
            if var bytes = answer {
                if refusedForTheBatch {
                    // A save refused (not applied) because its answer could not fit: the ones after it are not run.
                    answerBytes = shared.maximumBatchAnswerBytes
                } else if !answerChecked, answerBytes + bytes.count + 1 > shared.maximumBatchAnswerBytes, let id = Self.requestID(element) {
                    // Its own answer does not fit: it gets the error, and so do the ones after it.
                    bytes = RPCResponse.encode(id: id, .error(.tooLarge(.batchAnswer, limit: shared.maximumBatchAnswerBytes)))
                    answerBytes = shared.maximumBatchAnswerBytes
                } else {
                    answerBytes += bytes.count + 1
                }
                answers.append(bytes)
            }
            if close { break }
        }
        let bytes = answers.isEmpty ? nil : [UInt8(ascii: "[")] + Array(answers.joined(separator: [UInt8(ascii: ",")])) + [UInt8(ascii: "]")]
        return close ? .answerAndClose(bytes) : .answer(bytes)
    }

    private enum RequestStep {
        /// The answer (nil for a notification), and whether to close afterwards.
        case answered([UInt8]?, close: Bool)
        /// Needs the store; answer under `id` (nil for a notification), with the reply
        /// passed through `adjust`. `answerChecked`: the job checked its answer's size before
        /// changing anything (a save): its answer is sent as it is.
        case store(StoreJob, id: JSONValue?, adjust: (Reply) -> Reply, answerChecked: Bool)
        /// A `hello` waiting for its secret's hash; `finish` answers it under `id`.
        case hello(SecretCheck, id: JSONValue?, finish: (Principal?) -> (Reply, close: Bool))
        /// A `fetch` answered in parts under `id`, its last line's reply passed through `adjust`.
        case stream(FetchCall, id: JSONValue, adjust: (Reply) -> Reply)
    }

    /// The refusal of a `fetch` with `stream` in a batch.
    static let streamInBatch = RPCError.invalidRequest("a fetch with stream cannot be sent in a batch (its parts are lines of their own): send it alone")

    /// The `id` of a batch element that is a request (not a notification, nor invalid).
    private static func requestID(_ element: JSONValue) -> JSONValue? {
        guard case .object(let pairs) = element else { return .null }
        return pairs.last(where: { $0.key == "id" })?.value
    }

    /// `batchRemaining`: in a batch, the bytes its answers may still take; nil outside a batch.
    /// `started`: when its line was read (``RequestMeter/now()``), to time it.
    private func request(_ message: JSONValue, batchRemaining: Int?, started: UInt64) -> RequestStep {
        switch RPCRequest.parse(message) {
        case .failure(let rejection):
            shared.meter.record(slot: RequestMeter.otherSlot, ok: false, started: started, params: { nil })
            return .answered(RPCResponse.encode(id: rejection.id, .error(rejection.error)), close: false)
        case .success(let request):
            let slot = RequestMeter.slot(request.method)
            if logger.logLevel <= .debug {
                logger.debug("request", metadata: ["method": "\(LogText.escaped(request.method))", "id": "\(request.id?.jsonText ?? "none")"])
            }
            if request.id == nil, request.method == ProtocolMethod.hello.rawValue {
                // A notification gets no answer, so a hello sent as one could not tell the client
                // whether its token was right: it is not carried out (docs/PROTOCOL.md, hello).
                logger.info("ignored a hello sent as a notification (without id): it neither authenticates nor names the client")
                return .answered(nil, close: false)
            }
            switch dispatch(request, batchRemaining: batchRemaining) {
            case .reply(let reply, let close):
                // A hello's parameters hold a secret: never kept in the slow log.
                shared.meter.record(slot: slot, ok: reply.isResult, started: started, method: request.method,
                                    params: { request.method == ProtocolMethod.hello.rawValue ? nil : request.params })
                if case .error(let error) = reply {
                    logger.debug("error answer", metadata: ["method": "\(LogText.escaped(request.method))", "code": "\(error.code)",
                                                          "message": "\(LogText.escaped(error.message))"])
                }
                return .answered(request.id.map { shared.encode(id: $0, reply) }, close: close)
            case .hello(let check, let finish):
                let meter = shared.meter
                return .hello(check, id: request.id, finish: { principal in
                    let (reply, close) = finish(principal)
                    meter.record(slot: slot, ok: reply.isResult, started: started, method: request.method, params: { nil })
                    return (reply, close)
                })
            case .store(let job, let adjust, let answerChecked):
                let meter = shared.meter
                return .store(job, id: request.id, adjust: { reply in
                    let adjusted = adjust(reply)
                    meter.record(slot: slot, ok: adjusted.isResult, started: started, method: request.method, params: { request.params })
                    return adjusted
                }, answerChecked: answerChecked)
            case .stream(let call, let id, let adjust):
                let meter = shared.meter
                return .stream(call, id: id, adjust: { reply in
                    let adjusted = adjust(reply)
                    meter.record(slot: slot, ok: adjusted.isResult, started: started, method: request.method, params: { request.params })
                    return adjusted
                })
            }
        }
    }

    enum Dispatch {
        case reply(Reply, close: Bool)
        case store(StoreJob, adjust: (Reply) -> Reply = { $0 }, answerChecked: Bool = false)
        /// A `hello` waiting for its secret's slow hash (``ConnectionSession/finishHello(_:user:present:)``).
        case hello(SecretCheck, finish: (Principal?) -> (Reply, close: Bool))
        /// A `fetch` answered in parts under the request's `id`.
        case stream(FetchCall, id: JSONValue, adjust: (Reply) -> Reply)
    }

    private func dispatch(_ request: RPCRequest, batchRemaining: Int?) -> Dispatch {
        let inBatch = batchRemaining != nil
        let method = ProtocolMethod(rawValue: request.method)
        if method == .hello { return hello(request.params) }
        guard authenticated else {
            let needed = shared.access.usersPath != nil ? "a user: send hello with user and secret first" : "a token: send hello with it first"
            return .reply(.error(.unauthorized("this server needs \(needed)")), close: false)
        }
        if let refusal = refreshPrincipal() { return .reply(.error(refusal), close: true) }
        guard let method else { return .reply(.error(.methodNotFound(request.method)), close: false) }
        do throws(RPCError) {
            switch method {
            case .hello:
                return hello(request.params)  // answered above already, before the check of authentication
            case .ping:
                try Params.none(request.params, method: "ping")
                return .reply(.result(Array(#""pong""#.utf8)), close: false)
            case .model:
                try Params.none(request.params, method: "model")
                return .reply(.result(shared.modelResult), close: false)
            case .fetch:
                var call = try FetchCall.parse(request.params, model: shared.model, predicates: shared.predicates)
                try restrict(&call)
                let format = try? Params(request.params).optionalString("predicate")
                // A count is one line: streamed or not, it is answered whole; so is a notification (no answer).
                if call.stream, call.resultType != .count, let id = request.id {
                    if inBatch { return .reply(.error(Self.streamInBatch), close: false) }
                    return .stream(call, id: id) { PredicatePosition.placed($0, in: format) }
                }
                // A fetch an index answers in a few steps is answered here, as a small `get` is.
                if shared.worker.holds(after: call.after), let reply = shared.worker.reader.quickFetch(call) {
                    return .reply(reply, close: false)
                }
                return .store(.fetch(call)) { PredicatePosition.placed($0, in: format) }
            case .get:
                var call = try GetCall.parse(request.params, model: shared.model)
                call.readAccess = readAccess()
                // A few objects are answered here, on the connection's thread, from the latest state.
                // (With a bounded cache, one the state does not hold goes to a reader thread, which reads it from the database.)
                guard call.ids.count <= Self.inlineGetLimit, shared.worker.holds(after: call.after),
                      let reply = shared.worker.reader.cachedGet(call) else { return .store(.get(call)) }
                return .reply(reply, close: false)
            case .save:
                var call = try SaveCall.parse(request.params, ids: &idReader)
                call.author = author
                if let principal, let refusal = SaveRules(principal: principal, state: shared.worker.reader.state).refusal(call) {
                    throw refusal
                }
                call.answerLimit = request.id.map { shared.saveAnswerLimit(id: $0, batchRemaining: batchRemaining) }
                return .store(.save(call), answerChecked: true)
            case .subscribe:
                var call = try SubscribeCall.parse(request.params, model: shared.model)
                call.filter = try restrict(call.filter)
                guard !inBatch else {
                    return .reply(.error(.invalidRequest("subscribe cannot be sent in a batch (its answer must come before its notifications): send it alone")), close: false)
                }
                guard let sink else { return .reply(.error(.storeUnavailable("this connection cannot receive notifications")), close: false) }
                return .store(.subscribe(call, sink))
            case .unsubscribe:
                let params = try Params(request.params, allowed: [ChangeMembers.subscription])
                guard let number = try params.optionalInteger(ChangeMembers.subscription, minimum: 1) else {
                    throw RPCError.invalidParams(params.path(ChangeMembers.subscription), "is required (the number subscribe answered)")
                }
                guard let sink else { return .reply(.error(.noSubscription(number)), close: false) }
                return .store(.unsubscribe(number, sink))
            case .changes:
                var call = try ChangesCall.parse(request.params, model: shared.model)
                call.filter = try restrict(call.filter)
                return .store(.changes(call))
            case .stats:
                try requireAdmin("stats")
                try Params.none(request.params, method: "stats")
                return .reply(.result(Array(shared.status.statsResult().jsonText.utf8)), close: false)
            case .slowlog:
                try requireAdmin("slowlog")
                let params = try Params(request.params, allowed: [SlowLogMembers.reset])
                return .reply(.result(Array(shared.status.slowLogResult(reset: try params.optionalBool(SlowLogMembers.reset) ?? false).jsonText.utf8)),
                              close: false)
            case .backup:
                try requireAdmin("backup")
                return .store(.backup(try BackupCall.parse(request.params)))
            }
        } catch {
            return .reply(.error(error), close: false)
        }
    }

    /// Compares without stopping at the first difference, so timing does not reveal the token.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}

/// Recognizes the first line of an HTTP request (or a header line), so that a web page
/// cannot make a browser talk to the server (a cross-protocol attack).
enum HTTPDetection {
    private static let prefixes: [[UInt8]] = ["GET ", "POST ", "PUT ", "HEAD ", "DELETE ", "OPTIONS ", "PATCH ", "CONNECT ", "TRACE "]
        .map { Array($0.utf8) }

    static func looksLikeHTTP(_ line: ByteBuffer) -> Bool {
        let bytes = Array(line.readableBytesView.prefix(16))
        if prefixes.contains(where: { bytes.starts(with: $0) }) { return true }
        // A header line: a token, then a colon ("Host: …", "User-Agent: …").
        let lowered = bytes.map { $0 | 0x20 }
        return lowered.starts(with: Array("host:".utf8)) || lowered.starts(with: Array("user-agent:".utf8))
    }
}
