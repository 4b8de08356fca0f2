import Foundation
import Logging
import NIOCore

/// Handles a listening socket that cannot accept: out of descriptors it frees the
/// ``DescriptorReserve`` (or, with none left, pauses the loop for 10 ms, so it never spins),
/// and logs once per episode, and once when connections are accepted again.
///
/// Not `Sendable`: it lives on the listening channel's event loop.
final class AcceptFailureHandler: ChannelInboundHandler {
    typealias InboundIn = Channel
    typealias InboundOut = Channel

    private let logger: Logger
    private let reserve: DescriptorReserve
    private var failing = false
    private var failures = 0

    init(reserve: DescriptorReserve, logger: Logger) {
        self.reserve = reserve
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if failing && !reserve.isReleased {
            failing = false
            logger.notice("accepting connections again", metadata: ["failedAccepts": "\(failures)"])
            failures = 0
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard let error = error as? IOError else {
            context.fireErrorCaught(error)
            return
        }
        failures += 1
        if !failing {
            failing = true
            logger.error("cannot accept connections (\(error)); refusing them with 'server busy' until descriptors are free (raise the open-files limit, ulimit -n, or lower --max-connections)")
        }
        guard error.errnoCode == EMFILE || error.errnoCode == ENFILE, reserve.release() else {
            // Nothing to free (or another error): wait a moment instead of retrying at once.
            usleep(10_000)
            return
        }
    }
}
