import Logging
import NIOCore

/// Logs, once per episode, that the listening socket cannot accept connections (out of file
/// descriptors, typically), and once when it accepts again. Sits after NIO's
/// `AcceptBackoffHandler`, which spaces the retries.
///
/// Not `Sendable`: it lives on the listening channel's event loop.
final class AcceptFailureLog: ChannelInboundHandler {
    typealias InboundIn = Channel
    typealias InboundOut = Channel

    private let logger: Logger
    private var failing = false
    private var failures = 0

    init(logger: Logger) {
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if failing {
            failing = false
            logger.notice("accepting connections again", metadata: ["failedAccepts": "\(failures)"])
            failures = 0
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard error is IOError else {
            context.fireErrorCaught(error)
            return
        }
        failures += 1
        if !failing {
            failing = true
            logger.error("cannot accept connections (\(error)); retrying every 250 ms until it can (raise the open-files limit, ulimit -n, or lower --max-connections)")
        }
    }
}
