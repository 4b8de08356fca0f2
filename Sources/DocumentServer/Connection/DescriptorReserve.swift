import Foundation
import NIOConcurrencyHelpers

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
