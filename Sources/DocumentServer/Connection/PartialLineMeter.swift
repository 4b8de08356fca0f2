import DocumentProtocol
import Logging
import NIOCore

/// Counts, ahead of the line decoder, the bytes a connection has sent since its last
/// newline (the incomplete line the decoder holds), and books them with the
/// ``ConnectionGate``: a connection that would take the total past its limit gets a -32005
/// error line and is closed, once its request in progress is answered
/// (``ConnectionHandler/ClosingError``).
///
/// Not `Sendable`: it lives on its channel's event loop.
final class PartialLineMeter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let gate: ConnectionGate
    private let logger: Logger
    /// Bytes after the last newline, booked with the gate.
    private var pending = 0
    private var refused = false

    init(gate: ConnectionGate, logger: Logger) {
        self.gate = gate
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let buffer = unwrapInboundIn(data)
        let view = buffer.readableBytesView
        let tail: Int
        if let newline = view.lastIndex(of: UInt8(ascii: "\n")) {
            tail = view.endIndex - newline - 1
        } else {
            tail = pending + view.count
        }
        if tail > pending {
            guard gate.adjustBuffered(by: tail - pending) else {
                refuse(context: context)
                return
            }
        } else if tail < pending {
            _ = gate.adjustBuffered(by: tail - pending)
        }
        pending = tail
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
    }

    private func release() {
        if pending > 0 { _ = gate.adjustBuffered(by: -pending) }
        pending = 0
    }

    private func refuse(context: ChannelHandlerContext) {
        refused = true
        release()
        logger.info("closing a connection: the server holds too many bytes of incomplete lines",
                    metadata: ["limit": "\(gate.maximumBufferedBytes)"])
        let error = RPCError.tooLarge(.bufferedBytes, limit: gate.maximumBufferedBytes)
        context.fireUserInboundEventTriggered(ConnectionHandler.ClosingError(line: RPCResponse.encode(id: .null, .error(error))))
    }
}
