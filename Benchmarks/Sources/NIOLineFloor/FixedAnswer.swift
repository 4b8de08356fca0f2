import NIOCore

/// Answers every line with `answer`; flushes when the read is done.
final class FixedAnswer: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    // Sendable: one per channel, used on its event loop only.
    private let answer: ByteBuffer
    private var pending = false

    init(answer: ByteBuffer) { self.answer = answer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(wrapOutboundOut(answer), promise: nil)
        pending = true
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if pending {
            pending = false
            context.flush()
        }
    }
}
