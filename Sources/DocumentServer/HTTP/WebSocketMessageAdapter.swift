import DocumentProtocol
import NIOCore
import NIOWebSocket

/// Makes a WebSocket look like the line protocol to the ``ConnectionHandler`` after it: each
/// text message in is one line, each line out (answers and notifications) is one text frame.
/// So `/rpc` runs the TCP port's session code unchanged, with its limits, its queue, its idle
/// timeout and its shutdown.
///
/// - A message longer than the line limit is refused as a line is: the `too large` error, then
///   the connection closes (with the close code 1009, message too big).
/// - A binary message is not the protocol: the connection closes with 1003 (unsupported data).
/// - Pings are answered with pongs; a close frame is answered with one and the connection closes.
/// - When the handler after it closes the connection (or its output), a close frame goes first,
///   so a browser sees a clean close rather than a dropped connection.
///
/// Not `Sendable`: it lives on its channel's event loop.
final class WebSocketMessageAdapter: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    private let maximumMessageBytes: Int
    /// A close frame was sent: nothing is written after it.
    private var sentClose = false
    /// The close code to send when the connection is closed from this side.
    private var closeCode = WebSocketErrorCode.normalClosure
    /// The last frame written, so that an empty write (the session's "flush, then close")
    /// completes once every frame before it is written.
    private var lastWrite: EventLoopFuture<Void>?

    init(maximumMessageBytes: Int) {
        self.maximumMessageBytes = maximumMessageBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            context.fireChannelRead(wrapInboundOut(frame.unmaskedData))
        case .binary:
            // Through the pipeline's tail, so that the close frame goes first (close(context:mode:promise:)).
            closeCode = .unacceptableData
            context.channel.close(promise: nil)
        case .ping:
            guard !sentClose else { return }
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            let channel = context.channel
            sendClose(context: context, code: .normalClosure).whenComplete { _ in channel.close(promise: nil) }
        default:
            break  // pongs, and continuations the aggregator before this handler joins
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        switch error {
        case NIOWebSocketError.invalidFrameLength, NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge,
             NIOWebSocketFrameAggregator.Error.tooManyFragments:
            // As a line too long: the session answers `too large` and closes.
            closeCode = .messageTooLarge
            context.fireErrorCaught(LineTooLongError(limit: maximumMessageBytes))
        case is NIOWebSocketError, is NIOWebSocketFrameAggregator.Error:
            closeCode = .protocolError
            context.fireErrorCaught(error)
        default:
            context.fireErrorCaught(error)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var buffer = unwrapOutboundIn(data)
        guard !sentClose else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        var written: EventLoopFuture<Void>?
        // Every writer of the line protocol (the session's answers, the feed's notifications, the
        // closing errors) writes one line and its `\n` at a time: the line, without it, is the message.
        // Not searched for other newlines: an answer may be 64 MiB, and JSON text has none raw.
        if buffer.readableBytes > 0, buffer.getInteger(at: buffer.writerIndex - 1, as: UInt8.self) == UInt8(ascii: "\n") {
            buffer.moveWriterIndex(to: buffer.writerIndex - 1)
        }
        if buffer.readableBytes > 0 {
            written = context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buffer)))
        }
        if let written {
            lastWrite = written
            written.cascade(to: promise)
        } else if let lastWrite {
            lastWrite.cascade(to: promise)
        } else {
            promise?.succeed(())
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode != .input, !sentClose, context.channel.isActive else {
            context.close(mode: mode, promise: promise)
            return
        }
        // The close frame first; a half-close (the session's "last line, then close") closes all:
        // a WebSocket has no half-closed state a browser would wait in.
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        sendClose(context: context, code: closeCode).whenComplete { _ in bound.value.close(mode: .all, promise: promise) }
    }

    private func sendClose(context: ChannelHandlerContext, code: WebSocketErrorCode) -> EventLoopFuture<Void> {
        guard !sentClose else { return context.eventLoop.makeSucceededVoidFuture() }
        sentClose = true
        var payload = context.channel.allocator.buffer(capacity: 2)
        payload.write(webSocketErrorCode: code)
        return context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)))
    }
}
