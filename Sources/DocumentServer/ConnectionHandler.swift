import DocumentProtocol
import Logging
import NIOCore

/// Serves one connection on its event loop: lines in, answers out, one request at a time
/// and in order, so a client always sees its own earlier writes.
///
/// Requests that can be answered at once never leave the event loop; the others go to the
/// store thread and come back here. Lines that arrive meanwhile wait in a short queue;
/// when it is full, or when the client does not read its answers (the channel is not
/// writable), the handler stops reading from the socket, so a slow or stalled client costs
/// a bounded amount of memory and no other connection waits for it.
///
/// A connection that sends no complete line for the idle timeout while it waits for no
/// answer (it sends nothing, or only part of a line, or does not read its answers) is closed.
///
/// Not `Sendable`: it lives on its channel's event loop.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Lines held while a request runs before the handler stops reading.
    static let queueLimit = 32

    private let session: ConnectionSession
    private let worker: StoreWorker
    private let logger: Logger
    private var waiting = CircularBuffer<ByteBuffer>(initialCapacity: 4)
    private var busy = false
    private var closing = false
    private var needsFlush = false
    /// A `read` held back until the queue has room again.
    private var deferredRead = false
    /// Nil: connections are never idle for too long.
    private let idleTimeout: TimeAmount?
    /// When the connection last received a line or sent an answer.
    private var lastActivity = NIODeadline.now()
    private var idleCheck: Scheduled<Void>?

    init(session: ConnectionSession, worker: StoreWorker, idleTimeout: TimeAmount? = nil, logger: Logger) {
        self.session = session
        self.worker = worker
        self.idleTimeout = idleTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        lastActivity = .now()
        scheduleIdleCheck(context: context, at: lastActivity)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleCheck?.cancel()
        idleCheck = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        lastActivity = .now()
        waiting.append(unwrapInboundIn(data))
        work(context: context)
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
        // A request in progress (a long fetch, a save) is not idleness: its answer is awaited.
        if busy { lastActivity = .now() }
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

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            lastActivity = .now()  // the client reads its answers
            work(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if closing {
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
            closing = true
            // Half-close and keep reading (and dropping) what the client still sends for a
            // moment: closing at once would reset the connection before it reads the answer.
            ClosingAnswer.send(RPCResponse.encode(id: .null, .error(.tooLarge(limit: error.limit))), on: context.channel)
            return
        }
        if !closing { logger.info("connection error", metadata: ["error": "\(LogText.escaped("\(error)"))"]) }
        closing = true
        context.close(promise: nil)
    }

    /// Handles waiting lines until one needs the store thread, the client stops reading
    /// answers, or the queue is empty.
    private func work(context: ChannelHandlerContext) {
        while !busy, !closing, context.channel.isWritable, let line = waiting.popFirst() {
            switch session.begin(line) {
            case .finished(let outcome):
                apply(outcome, context: context)
            case .store(let job, let finish):
                busy = true
                let loop = context.eventLoop
                let bound = NIOLoopBound((self, context, finish), eventLoop: loop)
                worker.submit(job) { reply in
                    loop.execute {
                        let (handler, context, finish) = bound.value
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
        flushIfNeeded(context: context)
        if deferredRead, waiting.count < Self.queueLimit, context.channel.isWritable, !closing {
            deferredRead = false
            context.read()
        }
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
        context.flush()
    }
}

/// Carries the session into the task that runs a batch. Safe: while the batch runs the
/// handler is `busy` and touches neither the session nor anything else of it.
private struct UncheckedSession: @unchecked Sendable {
    let session: ConnectionSession
}
