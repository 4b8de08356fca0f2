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

    init(session: ConnectionSession, worker: StoreWorker, logger: Logger) {
        self.session = session
        self.worker = worker
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        waiting.append(unwrapInboundIn(data))
        work(context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { work(context: context) }
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
            let answer = RPCResponse.encode(id: .null, .error(.tooLarge(limit: error.limit)))
            // Half-close and keep reading (and dropping) what the client still sends for a
            // moment: closing at once would reset the connection before it reads the answer.
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer + [UInt8(ascii: "\n")]))).whenComplete { _ in
                channel.close(mode: .output, promise: nil)
                channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
            }
            return
        }
        if !closing { logger.info("connection error", metadata: ["error": "\(error)"]) }
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
