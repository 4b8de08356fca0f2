import Logging
import ServiceLifecycle
import UnixSignals

/// Logs "received SIGTERM" (or SIGINT): the `ServiceGroup` that stops the server on these
/// signals says so only at debug level, and an operator wants to know why the server stopped.
///
/// First in the group, so it is shut down last, after the server has stopped.
struct SignalLogService: Service {
    let logger: Logger

    func run() async throws {
        for await signal in await UnixSignalsSequence(trapping: .sigterm, .sigint).cancelOnGracefulShutdown() {
            logger.info("received \(signal)")
        }
    }
}
