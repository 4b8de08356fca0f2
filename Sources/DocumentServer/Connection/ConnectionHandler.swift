import DocumentProtocol
import Logging
import NIOCore

/// Serves one connection on its event loop: lines in, answers out, one request at a time
/// and in order, so a client always sees its own earlier writes.
///
/// Requests that can be answered at once never leave the event loop; the others go to the
/// engine (a reader or the writer thread) and come back here. Lines that arrive meanwhile wait in a short queue;
/// when it is full, or when the client does not read its answers (the channel is not
/// writable), the handler stops reading from the socket, so a slow or stalled client costs
/// a bounded amount of memory and no other connection waits for it.
///
/// A connection that sends no complete line for the idle timeout while it waits for no
/// answer (it sends nothing, or only part of a line, or does not read its answers) is closed;
/// one with an open subscription waits for its notifications and is not idle.
///
/// When the server shuts down it sends ``Shutdown`` down every connection's pipeline: from
/// then on lines that arrive are read and dropped (not carried out, not answered); the lines
/// received before are carried out and answered in order (`.drain`), or, when the server must
/// stop at once, only the request in progress is (`.hurry`); then the connection closes.
///
/// Not `Sendable`: it lives on its channel's event loop.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The server's shutdown, as a user inbound event (`docs/PROTOCOL.md`, Shutdown).
    enum Shutdown: Sendable, Comparable {
        /// Carry out and answer every line already received, then close.
        case drain
        /// Finish and answer the request in progress only; drop the lines not started, then close.
        case hurry
    }

    /// A framing error's last line (a line too long, too many bytes of incomplete lines), as a
    /// user inbound event: the request in progress is finished and answered first, the lines not
    /// started are dropped (not carried out, not answered), then this line is sent and the
    /// connection closed. So a save in progress is never applied without its answer.
    struct ClosingError: Sendable {
        let line: [UInt8]
    }

    /// Lines held while a request runs before the handler stops reading.
    static let queueLimit = 32
    /// How long a drained connection whose client still sent lines after the shutdown began
    /// waits, its output closed, for the client to close: what the client sends meanwhile is
    /// read and dropped, so that the close does not reset the connection before the client
    /// has read its last answers.
    static let drainedCloseGrace = TimeAmount.milliseconds(500)
    /// How long a drained connection waits for its last answers to be written (the client
    /// does not read them) before it is closed all the same.
    static let unreadAnswersGrace = TimeAmount.seconds(2)

    private let session: ConnectionSession
    private let worker: StoreWorker
    private let logger: Logger
    private var waiting = CircularBuffer<ByteBuffer>(initialCapacity: 4)
    private var busy = false
    private var closing = false
    /// A framing error's line, sent once the request in progress is answered (``ClosingError``).
    private var closingError: [UInt8]?
    /// Set once the server shuts down.
    private var stopping: Shutdown?
    /// Whether lines arrived (and were dropped) after the shutdown began.
    private var droppedLines = false
    private var needsFlush = false
    /// A flush is queued on the event loop (``channelReadComplete(context:)``).
    private var flushScheduled = false
    /// A `read` held back until the queue has room again.
    private var deferredRead = false
    /// Nil: connections are never idle for too long.
    private let idleTimeout: TimeAmount?
    /// When the connection last received a line or sent an answer.
    private var lastActivity = NIODeadline.now()
    private var idleCheck: Scheduled<Void>?
    /// The writer of the streamed answer in progress, if one is.
    private var streaming: PartWriter?

    init(session: ConnectionSession, worker: StoreWorker, idleTimeout: TimeAmount? = nil, logger: Logger) {
        self.session = session
        self.worker = worker
        self.idleTimeout = idleTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let feed = worker.feed
        session.sink = SubscriptionSink(channel: context.channel, bufferBytes: feed.limits.subscriptionBufferBytes,
                                        ended: { sink, number in feed.ended(number, sink: sink) })
        lastActivity = .now()
        scheduleIdleCheck(context: context, at: lastActivity)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleCheck?.cancel()
        idleCheck = nil
        if let sink = session.sink { worker.feed.remove(sink) }  // subscriptions end with their connection
        session.sink = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing, closingError == nil else { return }
        guard stopping == nil else {
            // After the shutdown began a line is not carried out: dropped, unanswered.
            droppedLines = true
            return
        }
        lastActivity = .now()
        waiting.append(unwrapInboundIn(data))
        // The answers of every line of this read go out with one flush, in channelReadComplete.
        work(context: context, flush: false)
    }

    /// Checks, `idleTimeout` after `start`, whether the connection has been idle since.
    private func scheduleIdleCheck(context: ChannelHandlerContext, at start: NIODeadline) {
        guard let idleTimeout else { return }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        idleCheck = context.eventLoop.scheduleTask(deadline: start + idleTimeout) {
            let (handler, context) = bound.value
            handler.checkIdle(context: context)
        }
    }

    private func checkIdle(context: ChannelHandlerContext) {
        guard !closing, let idleTimeout else { return }
        // A request in progress (a long fetch, a save) is not idleness: its answer is awaited;
        // nor is an open subscription: its notifications are. A streamed answer is, once its
        // client stops reading its parts.
        if let streaming {
            lastActivity = max(lastActivity, streaming.progressed)
        } else if busy || session.sink?.hasOpenSubscriptions == true {
            lastActivity = .now()
        }
        let deadline = lastActivity + idleTimeout
        guard deadline <= .now() else {
            scheduleIdleCheck(context: context, at: lastActivity)
            return
        }
        logger.info("closing an idle connection", metadata: ["idleSeconds": "\(idleTimeout.nanoseconds / 1_000_000_000)"])
        closing = true
        waiting.removeAll()
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let error = event as? ClosingError {
            closeAfterAnswering(error.line, context: context)
            return
        }
        guard let shutdown = event as? Shutdown else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        guard !closing, stopping.map({ $0 < shutdown }) ?? true else { return }
        stopping = shutdown
        if shutdown == .hurry {
            streaming?.stop("the server is shutting down")
            waiting.removeAll()
            if !context.channel.isWritable {
                // The client does not read its answers: nothing more can reach it.
                closing = true
                context.close(promise: nil)
                return
            }
        }
        if deferredRead {
            deferredRead = false
            context.read()  // to drop what the client still sends
        }
        work(context: context)
    }

    /// The answers of what was read are flushed once the event loop has handled every
    /// connection that was ready (as Redis writes its replies before it sleeps): flushing here
    /// would wake the client before the loop reads the next connection, and on a busy machine
    /// the woken client takes the core from the loop, once for every answer.
    func channelReadComplete(context: ChannelHandlerContext) {
        guard needsFlush, !flushScheduled else { return }
        flushScheduled = true
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (handler, context) = bound.value
            handler.flushScheduled = false
            handler.flushIfNeeded(context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            lastActivity = .now()  // the client reads its answers
            work(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if closing || stopping != nil || closingError != nil {
            context.read()  // drained and dropped until the connection closes
        } else if waiting.count >= Self.queueLimit || !context.channel.isWritable {
            deferredRead = true
        } else {
            context.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let error = error as? LineTooLongError, !closing {
            logger.warning("line too long; closing the connection", metadata: ["limit": "\(error.limit)"])
            closeAfterAnswering(RPCResponse.encode(id: .null, .error(.tooLarge(limit: error.limit))), context: context)
            return
        }
        if case ByteToMessageDecoderError.dataReceivedInErrorState = error, closing || closingError != nil {
            // Bytes after a framing error, while the request in progress is answered or the last
            // line goes out: dropped, as the half-close intends (closing now would lose the answer).
            return
        }
        if !closing { logger.info("connection error", metadata: ["error": "\(LogText.escaped("\(error)"))"]) }
        closing = true
        context.close(promise: nil)
    }

    /// Sends `line` and closes the connection once the request in progress (if any) is
    /// answered; the lines not started are dropped.
    private func closeAfterAnswering(_ line: [UInt8], context: ChannelHandlerContext) {
        guard !closing, closingError == nil else { return }
        closingError = line
        waiting.removeAll()
        work(context: context)
    }

    /// Handles waiting lines until one needs the engine, the client stops reading
    /// answers, or the queue is empty.
    /// `flush`: false when called for a line just read (``channelReadComplete(context:)`` flushes
    /// once for all the lines of a read: one write for a client's pipelined requests).
    private func work(context: ChannelHandlerContext, flush: Bool = true) {
        if let line = closingError {
            guard !busy, !closing else { return }
            closing = true
            needsFlush = false
            // Half-close and keep reading (and dropping) what the client still sends for a
            // moment: closing at once would reset the connection before it reads the answers.
            ClosingAnswer.send(line, on: context.channel)
            return
        }
        while !busy, !closing, context.channel.isWritable, let line = waiting.popFirst() {
            switch session.begin(line) {
            case .finished(let outcome):
                apply(outcome, context: context)
            case .store(let job, let finish):
                busy = true
                let loop = context.eventLoop
                let bound = NIOLoopBound((self, context, finish), eventLoop: loop)
                worker.submit(job, on: loop) { reply in
                    loop.execute {
                        let (handler, context, finish) = bound.value
                        handler.resume(finish(reply), context: context)
                    }
                }
            case .hello(let check, let finish):
                // The secret's slow hash runs on a thread pool: this loop's other connections go on meanwhile.
                busy = true
                let bound = NIOLoopBound((self, context, finish), eventLoop: context.eventLoop)
                check.principal(on: context.eventLoop).whenSuccess { principal in
                    let (handler, context, finish) = bound.value
                    handler.resume(finish(principal), context: context)
                }
            case .stream(let call, let id, let finish):
                busy = true
                let writer = PartWriter(channel: context.channel, id: id)
                streaming = writer
                let loop = context.eventLoop
                let lineLimit = session.shared.maximumAnswerBytes - writer.envelopeBytes
                let bound = NIOLoopBound((self, context, finish), eventLoop: loop)
                let worker = self.worker
                Task {
                    let reply = await worker.stream(call, on: loop, lineLimit: lineLimit, send: { try await writer.send($0) })
                    loop.execute {
                        let (handler, context, finish) = bound.value
                        handler.streaming = nil
                        handler.resume(finish(reply), context: context)
                    }
                }
            case .batch(let elements):
                busy = true
                let loop = context.eventLoop
                let bound = NIOLoopBound((self, context), eventLoop: loop)
                let session = UncheckedSession(session: session)
                Task {
                    let outcome = await session.session.handleBatch(elements)
                    loop.execute {
                        let (handler, context) = bound.value
                        handler.resume(outcome, context: context)
                    }
                }
            }
        }
        if flush { flushIfNeeded(context: context) }
        if stopping != nil, !busy, !closing, waiting.isEmpty {
            closeDrained(context: context)
            return
        }
        if deferredRead, waiting.count < Self.queueLimit, context.channel.isWritable, !closing {
            deferredRead = false
            context.read()
        }
    }

    /// Every line received before the shutdown is answered: once the answers are written the
    /// connection closes; when the client is still sending, its output closes first and the
    /// connection when the client closes or after a grace.
    private func closeDrained(context: ChannelHandlerContext) {
        closing = true
        let channel = context.channel
        let stillSending = droppedLines
        context.writeAndFlush(wrapOutboundOut(ByteBuffer())).whenComplete { _ in
            guard stillSending else {
                channel.close(promise: nil)
                return
            }
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: Self.drainedCloseGrace) { channel.close(promise: nil) }
        }
        needsFlush = false
        context.eventLoop.scheduleTask(in: Self.unreadAnswersGrace) { channel.close(promise: nil) }
    }

    private func resume(_ outcome: ConnectionSession.Outcome, context: ChannelHandlerContext) {
        busy = false
        lastActivity = .now()
        apply(outcome, context: context)
        work(context: context)
    }

    private func apply(_ outcome: ConnectionSession.Outcome, context: ChannelHandlerContext) {
        switch outcome {
        case .answer(let bytes):
            guard let bytes else { return }
            write(bytes, context: context)
        case .answerAndClose(let bytes):
            closing = true
            waiting.removeAll()
            if let delay = session.closingAnswerDelay {
                // A failed hello: answered late (docs/SECURITY.md), written through the channel.
                session.closingAnswerDelay = nil
                let channel = context.channel
                context.eventLoop.scheduleTask(in: delay) {
                    var buffer = channel.allocator.buffer(capacity: (bytes?.count ?? 0) + 1)
                    if let bytes {
                        buffer.writeBytes(bytes)
                        buffer.writeInteger(UInt8(ascii: "\n"))
                    }
                    channel.writeAndFlush(buffer).whenComplete { _ in channel.close(promise: nil) }
                }
                needsFlush = false
                return
            }
            if let bytes { write(bytes, context: context) }
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(ByteBuffer())).whenComplete { _ in channel.close(promise: nil) }
            needsFlush = false
        }
    }

    private func write(_ bytes: [UInt8], context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: bytes.count + 1)
        buffer.writeBytes(bytes)
        buffer.writeInteger(UInt8(ascii: "\n"))
        context.write(wrapOutboundOut(buffer), promise: nil)
        needsFlush = true
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        guard needsFlush else { return }
        needsFlush = false
        // Through the channel: a queued flush may run after the handler left the pipeline.
        context.channel.flush()
    }
}

/// Carries the session into the task that runs a batch. Safe: while the batch runs the
/// handler is `busy` and touches neither the session nor anything else of it.
private struct UncheckedSession: @unchecked Sendable {
    let session: ConnectionSession
}
