import NIOCore

/// One client connection of a load run, like a redis-benchmark client: it sends one
/// request, waits for its answer (one line), checks and times it, then sends the next.
final class LoadHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The event that sends a connection's first request.
    struct Start: Sendable {}

    private let run: LoadRun
    private let workload: any ConnectionWorkload
    /// The start of an answer whose newline has not arrived yet.
    private var partial = ByteBuffer()
    private var sentAt: UInt64 = 0
    private var done = false

    init(run: LoadRun, workload: any ConnectionWorkload) {
        self.run = run
        self.workload = workload
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is Start { send(context: context) } else { context.fireUserInboundEventTriggered(event) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if partial.readableBytes == 0 {
            answers(in: &incoming, context: context)
            if incoming.readableBytes > 0 { partial.writeBuffer(&incoming) }
        } else {
            partial.writeBuffer(&incoming)
            answers(in: &partial, context: context)
        }
        if partial.readableBytes == 0 { partial.clear() } else if partial.readerIndex > 1 << 16 { partial.discardReadBytes() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(failure: "connection closed by the server")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        finish(failure: "connection error: \(error)")
        context.close(promise: nil)
    }

    private func send(context: ChannelHandlerContext) {
        let request = workload.nextRequest()
        sentAt = MonotonicClock.nanoseconds()
        context.writeAndFlush(wrapOutboundOut(request), promise: nil)
    }

    /// Handles every complete answer in `buffer` (a line, or the workload's framing), leaving a partial one in it.
    private func answers(in buffer: inout ByteBuffer, context: ChannelHandlerContext) {
        while !done {
            let workload = self.workload
            let found = buffer.withUnsafeReadableBytes { bytes -> (length: Int, ok: Bool, text: String?)? in
                guard let (length, body) = workload.answer(in: bytes) else { return nil }
                let ok = workload.check(body)
                return (length, ok, ok ? nil : String(decoding: body.prefix(300), as: UTF8.self))
            }
            guard let found else { return }
            let latency = MonotonicClock.nanoseconds() &- sentAt
            buffer.moveReaderIndex(forwardBy: found.length)
            run.record(latency: latency, ok: found.ok) { found.text ?? "" }
            if run.stopping {
                finish(failure: nil)
                context.close(promise: nil)
            } else {
                send(context: context)
            }
        }
    }

    private func finish(failure: String?) {
        guard !done else { return }
        done = true
        if let failure, !run.stopping { run.fail(failure) }
        run.connectionFinished()
    }
}
