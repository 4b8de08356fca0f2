import Logging
import NIOConcurrencyHelpers

/// What all connections hold together: how many are open, and how many bytes of incomplete
/// lines they buffer. Connections ask it before they grow either; past a limit it refuses,
/// and it logs a refusal once per burst instead of once per connection.
final class ConnectionGate: Sendable {
    private struct State {
        var open = 0
        var bufferedBytes = 0
        /// Whether connections are being refused now (a burst already logged).
        var refusingConnections = false
        var refusedInBurst = 0
        var refusingBuffers = false
    }

    let maximumConnections: Int
    let maximumBufferedBytes: Int
    private let state = NIOLockedValueBox(State())
    private let logger: Logger

    init(maximumConnections: Int, maximumBufferedBytes: Int, logger: Logger) {
        self.maximumConnections = maximumConnections
        self.maximumBufferedBytes = maximumBufferedBytes
        self.logger = logger
    }

    /// Counts a new connection in, or returns false (and counts nothing) when the limit is reached.
    func admitConnection() -> Bool {
        let (admitted, logRefusal, endedBurst) = state.withLockedValue { state -> (Bool, Bool, Int) in
            guard state.open < maximumConnections else {
                state.refusedInBurst += 1
                defer { state.refusingConnections = true }
                return (false, !state.refusingConnections, 0)
            }
            state.open += 1
            let ended = state.refusingConnections ? state.refusedInBurst : 0
            state.refusingConnections = false
            state.refusedInBurst = 0
            return (true, false, ended)
        }
        if logRefusal {
            logger.warning("connection limit reached: refusing new connections with 'server busy' until one closes",
                           metadata: ["limit": "\(maximumConnections)"])
        }
        if endedBurst > 0 {
            logger.notice("accepting connections again", metadata: ["refused": "\(endedBurst)"])
        }
        return admitted
    }

    /// Counts a connection out.
    func connectionClosed() {
        state.withLockedValue { $0.open -= 1 }
    }

    /// Grows the bytes buffered for incomplete lines by `delta` (which may be negative); a
    /// growth past the limit is refused (and not counted).
    func adjustBuffered(by delta: Int) -> Bool {
        let (accepted, logRefusal) = state.withLockedValue { state -> (Bool, Bool) in
            let (sum, overflow) = state.bufferedBytes.addingReportingOverflow(delta)
            if delta > 0 && (overflow || sum > maximumBufferedBytes) {
                defer { state.refusingBuffers = true }
                return (false, !state.refusingBuffers)
            }
            state.bufferedBytes = max(0, sum)
            if state.bufferedBytes < maximumBufferedBytes / 2 { state.refusingBuffers = false }
            return (true, false)
        }
        if logRefusal {
            logger.warning("the limit on bytes of incomplete lines is reached: closing connections that would buffer more",
                           metadata: ["limit": "\(maximumBufferedBytes)"])
        }
        return accepted
    }

    /// The bytes of incomplete lines buffered now.
    var bufferedBytes: Int { state.withLockedValue { $0.bufferedBytes } }
}
