import NIOCore
import NIOWebSocket

/// The client side of `/rpc` for the load handlers: each request line out (its `\n` dropped)
/// becomes one masked text frame, as a browser sends it; each text message in becomes one
/// line (its `\n` added), fragments joined. Pings are answered; a close frame closes.
final class WebSocketLineAdapter: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    /// The start of a message whose last fragment has not arrived.
    private var fragments: ByteBuffer?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .continuation:
            var payload = frame.unmaskedData
            if frame.fin, fragments == nil {
                payload.writeInteger(UInt8(ascii: "\n"))
                context.fireChannelRead(wrapInboundOut(payload))
            } else {
                var joined = fragments ?? context.channel.allocator.buffer(capacity: payload.readableBytes)
                joined.writeBuffer(&payload)
                if frame.fin {
                    joined.writeInteger(UInt8(ascii: "\n"))
                    fragments = nil
                    context.fireChannelRead(wrapInboundOut(joined))
                } else {
                    fragments = joined
                }
            }
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            context.close(promise: nil)
        default:
            break
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var line = unwrapOutboundIn(data)
        if line.readableBytes > 0, line.getInteger(at: line.writerIndex - 1, as: UInt8.self) == UInt8(ascii: "\n") {
            line.moveWriterIndex(to: line.writerIndex - 1)
        }
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: line)), promise: promise)
    }
}
