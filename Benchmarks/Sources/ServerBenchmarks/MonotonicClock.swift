#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds from the monotonic clock (`CLOCK_MONOTONIC`, a vDSO call on Linux): the
/// cheapest honest timestamp for per-request latencies.
enum MonotonicClock {
    @inline(__always)
    static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
