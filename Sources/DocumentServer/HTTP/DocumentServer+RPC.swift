import DocumentProtocol
import Logging
import NIOCore
import NIOWebSocket

/// `/rpc` on the HTTP port: the line protocol over a WebSocket (`GET`, upgraded) and one
/// request or batch per `POST`, through the TCP port's session code (`ConnectionSession`),
/// with its limits and its `hello`.
extension DocumentServer {
    /// Turns an upgraded WebSocket into one of the server's connections: counted against
    /// `--max-connections` with the TCP ones (past it: the `server busy` error, then the close),
    /// told of the shutdown as they are, served by a ``ConnectionHandler`` behind a
    /// ``WebSocketMessageAdapter``. Runs on the channel's event loop.
    func adoptWebSocket(_ channel: Channel, logger: Logger) -> EventLoopFuture<Void> {
        let shared = self.shared, gate = self.gate, lifecycle = self.lifecycle
        let maximumMessageBytes = configuration.maximumLineLength
        let aggregator = NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                                     maxAccumulatedFrameSize: maximumMessageBytes)
        let adapter = WebSocketMessageAdapter(maximumMessageBytes: maximumMessageBytes)
        guard gate.admitConnection() else {
            let busy = RPCResponse.encode(id: .null, .error(.serverBusy(limit: gate.maximumConnections)))
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandlers(aggregator, adapter)
                ClosingAnswer.send(busy, on: channel, grace: .zero)
            }
        }
        var named = logger
        named[metadataKey: "transport"] = "websocket"
        guard let connectionLogger = Self.enlist(channel, shared: shared, gate: gate, lifecycle: lifecycle, logger: named) else {
            return channel.close()
        }
        let idleTimeout = IdleTimeout.amount(seconds: configuration.idleTimeoutSeconds)
        return channel.eventLoop.makeCompletedFuture {
            let session = ConnectionSession(shared: shared, logger: connectionLogger)
            session.address = channel.remoteAddress?.ipAddress ?? "unknown"
            try channel.pipeline.syncOperations.addHandlers(
                aggregator, adapter,
                ConnectionHandler(session: session, worker: shared.worker, idleTimeout: idleTimeout, logger: connectionLogger))
        }
    }

    /// The answer to one `POST /rpc` body: a request or a batch, run by a session of its own
    /// (so a server with a token needs a batch that starts with `hello`). 200 with the answer,
    /// 204 for notifications only; a wrong token closes the HTTP connection after its answer.
    /// Runs on `loop`, the HTTP connection's.
    func answerPost(_ body: ByteBuffer, from address: String, on loop: EventLoop, logger: Logger) -> EventLoopFuture<HTTPAnswer> {
        guard body.readableBytes <= configuration.maximumLineLength else {
            let error = RPCResponse.encode(id: .null, .error(.tooLarge(limit: configuration.maximumLineLength)))
            return loop.makeSucceededFuture(HTTPAnswer.json(.payloadTooLarge, error, close: true))
        }
        var postLogger = logger
        postLogger[metadataKey: "transport"] = "http-post"
        let session = ConnectionSession(shared: shared, logger: postLogger)
        session.address = address
        switch session.begin(body) {
        case .finished(let outcome):
            return loop.makeSucceededFuture(Self.answer(outcome))
        case .store(let job, let finish):
            let promise = loop.makePromise(of: HTTPAnswer.self)
            let bound = NIOLoopBound(finish, eventLoop: loop)
            shared.worker.submit(job) { reply in
                loop.execute { promise.succeed(Self.answer(bound.value(reply))) }
            }
            return promise.futureResult
        case .hello(let check, let finish):
            let bound = NIOLoopBound(finish, eventLoop: loop)
            return check.principal(on: loop).map { Self.answer(bound.value($0)) }
        case .stream(_, let id, _):
            // One body answers a POST: parts of an answer need a connection (the line protocol, a WebSocket).
            let refusal = RPCError.invalidRequest("a fetch with stream needs a connection (TCP or a WebSocket), not POST /rpc: send it without stream, or page it")
            return loop.makeSucceededFuture(HTTPAnswer.json(.ok, RPCResponse.encode(id: id, .error(refusal)), close: false))
        case .batch(let elements):
            let promise = loop.makePromise(of: HTTPAnswer.self)
            let unchecked = PostSession(session: session)
            promise.completeWithTask { Self.answer(await unchecked.session.handleBatch(elements)) }
            return promise.futureResult
        }
    }

    private static func answer(_ outcome: ConnectionSession.Outcome) -> HTTPAnswer {
        switch outcome {
        case .answer(let bytes?): return .json(.ok, bytes, close: false)
        case .answer(nil): return HTTPAnswer(status: .noContent, contentType: "application/json", body: [])
        case .answerAndClose(let bytes): return .json(.ok, bytes ?? [], close: true)
        }
    }
}

/// A POST's session handed to the task that runs its batch: the session is used by that task
/// alone (the event loop does not touch it meanwhile).
private struct PostSession: @unchecked Sendable {
    let session: ConnectionSession
}
