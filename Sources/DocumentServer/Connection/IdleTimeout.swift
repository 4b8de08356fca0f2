import NIOCore

/// A connection's idle timeout from a number of seconds a library user may set freely: at most
/// a year (the longest `--idle-timeout` accepts), so that its nanoseconds never overflow.
enum IdleTimeout {
    /// The longest idle timeout, in seconds.
    static let maximumSeconds = 31_536_000

    /// `seconds` as a timeout (at least `minimum`, at most ``maximumSeconds``), or nil for 0
    /// or less when `minimum` is 0 (never closed for idleness).
    static func amount(seconds: Int, minimum: Int = 0) -> TimeAmount? {
        let bounded = min(max(seconds, minimum), maximumSeconds)
        return bounded > 0 ? .seconds(Int64(bounded)) : nil
    }
}
