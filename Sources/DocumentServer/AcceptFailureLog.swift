import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// One file descriptor held in reserve for when the process runs out: an `accept` that fails
/// for lack of descriptors leaves the connection waiting and the listening socket readable,
/// so the event loop would retry at once, forever (NIO's `AcceptBackoffHandler` cannot help:
/// after a failed accept the read stays pending). Freeing the reserve lets the waiting
/// connection be accepted, to be refused with `server busy` and closed; then the reserve is
/// taken back.
final class DescriptorReserve: Sendable {
    private struct State {
        var descriptor: Int32 = -1
        /// Freed for a connection that is still to be accepted and refused.
        var released = false
    }

    private let state = NIOLockedValueBox(State())

    init() {
        state.withLockedValue { $0.descriptor = Self.openSpare() }
    }

    deinit {
        state.withLockedValue { state in
            if state.descriptor >= 0 { close(state.descriptor) }
        }
    }

    private static func openSpare() -> Int32 { open("/dev/null", O_RDONLY | O_CLOEXEC) }

    /// Frees the reserve; false when there was none to free.
    func release() -> Bool {
        state.withLockedValue { state in
            guard state.descriptor >= 0 else { return false }
            close(state.descriptor)
            state.descriptor = -1
            state.released = true
            return true
        }
    }

    /// Whether the reserve is freed (the next connection accepted is to be refused).
    var isReleased: Bool { state.withLockedValue { $0.released } }

    /// True once for the connection accepted with the freed reserve.
    func takeReleased() -> Bool {
        state.withLockedValue { state in
            defer { state.released = false }
            return state.released
        }
    }

    /// Takes the reserve back (after the refused connection closed).
    func restore() {
        state.withLockedValue { state in
            if state.descriptor < 0 { state.descriptor = Self.openSpare() }
        }
    }
}

/// Handles a listening socket that cannot accept: out of descriptors it frees the
/// ``DescriptorReserve`` (or, with none left, pauses the loop for 10 ms, so it never spins),
/// and logs once per episode, and once when connections are accepted again.
///
/// Not `Sendable`: it lives on the listening channel's event loop.
final class AcceptFailureLog: ChannelInboundHandler {
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
