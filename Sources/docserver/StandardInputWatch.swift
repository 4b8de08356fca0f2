import Foundation
import Logging
import ServiceLifecycle

/// With `--stop-when-stdin-closes`: ends when standard input reaches its end, and the group
/// it runs in then shuts the server down as SIGTERM does. A program that starts the server
/// with a pipe on its standard input and keeps the other end open gets a server that stops
/// when the program exits, however it exits (a crash, SIGKILL), because the system closes the
/// program's end of the pipe then.
///
/// The read blocks a thread of its own (standard input may be a pipe, a file or a terminal);
/// on a graceful shutdown for another reason the service returns at once and leaves that
/// thread to the process's exit.
struct StandardInputWatch: Service {
    let logger: Logger

    func run() async throws {
        let reached = await cancelWhenGracefulShutdown { await Self.endOfInput() }
        if reached { logger.info("standard input closed: stopping") }
    }

    /// True when standard input reached its end (or cannot be read); false when the task was
    /// cancelled first.
    private static func endOfInput() async -> Bool {
        let outcome = Outcome()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                guard outcome.wait(with: continuation) else { return }
                let thread = Thread {
                    var buffer = [UInt8](repeating: 0, count: 4_096)
                    while true {
                        let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                        if count > 0 || (count < 0 && errno == EINTR) { continue }  // what arrives is ignored
                        break
                    }
                    outcome.finish(true)
                }
                thread.name = "docserver stdin"
                thread.start()
            }
        } onCancel: {
            outcome.finish(false)
        }
    }

    /// The continuation waiting for the end of input, resumed once: by the reading thread or
    /// by cancellation, whichever comes first (cancellation may come before the wait begins).
    private final class Outcome: @unchecked Sendable {
        // Safe to share: `waiting` and `finished` are only touched under `lock`.
        private let lock = NSLock()
        private var waiting: CheckedContinuation<Bool, Never>?
        private var finished: Bool?

        /// Keeps `continuation` to resume; false when the outcome is known (it was resumed now).
        func wait(with continuation: CheckedContinuation<Bool, Never>) -> Bool {
            lock.lock()
            guard let finished else {
                waiting = continuation
                lock.unlock()
                return true
            }
            lock.unlock()
            continuation.resume(returning: finished)
            return false
        }

        func finish(_ value: Bool) {
            lock.lock()
            guard finished == nil else {
                lock.unlock()
                return
            }
            finished = value
            let continuation = waiting
            waiting = nil
            lock.unlock()
            continuation?.resume(returning: value)
        }
    }
}
