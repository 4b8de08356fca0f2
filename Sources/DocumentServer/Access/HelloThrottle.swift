import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Counts failed `hello`s per client address and slows the address down: the answer to its
/// n-th failure in a row is sent after 100 ms · 2ⁿ⁻¹ (at most 30 s), and until then another
/// `hello` from the address is refused unchecked (the secret not even compared). A client
/// that waits for its answer before trying again is never refused unchecked. A burst of failures is logged once, when it starts, and
/// its count once it ends (a success, or a minute without failures); names are escaped.
final class HelloThrottle: Sendable {
    private struct Burst {
        var failures = 0
        var lastFailure = NIODeadline.now()
        var blockedUntil = NIODeadline.now()
    }

    /// The longest delay.
    static let maximumDelay = TimeAmount.seconds(30)
    /// A burst ends after this long without failures.
    static let quiet = TimeAmount.seconds(60)
    /// The most addresses tracked at once (the oldest bursts are forgotten past it).
    static let maximumAddresses = 10_000

    private let bursts = NIOLockedValueBox([String: Burst]())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Nil when a `hello` from `address` may be checked now; else how long it must wait.
    func waitBefore(address: String, now: NIODeadline = .now()) -> TimeAmount? {
        bursts.withLockedValue { bursts in
            guard let burst = bursts[address], burst.blockedUntil > now else { return nil }
            return burst.blockedUntil - now
        }
    }

    /// A failed `hello` from `address` for user `user` (nil: a token or nothing was sent);
    /// returns how long its answer waits.
    @discardableResult
    func failed(address: String, user: String?, now: NIODeadline = .now()) -> TimeAmount {
        let (first, ended, delay) = bursts.withLockedValue { bursts -> (Bool, Int, TimeAmount) in
            var ended = 0
            if var burst = bursts[address], now - burst.lastFailure > Self.quiet {
                ended = burst.failures
                burst = Burst()
                bursts[address] = burst
            }
            if bursts.count >= Self.maximumAddresses, bursts[address] == nil {
                // Forget the quietest address: the table stays bounded whatever the attacker does.
                if let oldest = bursts.min(by: { $0.value.lastFailure < $1.value.lastFailure })?.key { bursts[oldest] = nil }
            }
            var burst = bursts[address] ?? Burst()
            burst.failures += 1
            burst.lastFailure = now
            let exponent = min(burst.failures - 1, 20)
            let delay = min(TimeAmount.milliseconds(100 << Int64(exponent)), Self.maximumDelay)
            burst.blockedUntil = now + delay
            bursts[address] = burst
            return (burst.failures == 1, ended, delay)
        }
        if ended > 0 {
            logger.warning("failed hellos from an address ended", metadata: ["address": "\(LogText.escaped(address))", "failures": "\(ended)"])
        }
        if first {
            logger.warning("failed hello: wrong user or secret; further failures from this address are slowed and logged once the burst ends",
                           metadata: ["address": "\(LogText.escaped(address))", "user": "\(LogText.escaped(user ?? "-"))"])
        }
        return delay
    }

    /// A successful `hello` from `address`: its burst ends.
    func succeeded(address: String) {
        let ended = bursts.withLockedValue { $0.removeValue(forKey: address)?.failures ?? 0 }
        if ended > 1 {
            logger.warning("failed hellos from an address ended with a successful one",
                           metadata: ["address": "\(LogText.escaped(address))", "failures": "\(ended)"])
        }
    }
}
