import BenchmarkSupport

/// What one load run measured: answers counted in the measurement window (after the
/// warm-up), how many of them were errors, and their latencies.
struct Measurement: Sendable {
    /// Answers received in the window, errors included.
    var answers: Int
    /// Answers that were not a successful result (an `error`, or a result that failed the check).
    var errors: Int
    /// Failed answers during the warm-up (not counted in the figures, but reported).
    var warmupErrors: Int
    /// The first failing answer (or connection failure), cut to 300 characters, for the report.
    var firstError: String?
    /// Length of the measurement window in seconds.
    var seconds: Double
    /// Latency of each answer in the window, in nanoseconds, sorted.
    var latencies: [UInt64]
    /// Involuntary context switches of a load thread that has ended by the time the run is
    /// reported (`BlockingLoad`'s), so that `/proc/self/task` no longer lists it.
    var endedThreadPreemptions = 0

    var requestsPerSecond: Double { seconds > 0 ? Double(answers - errors) / seconds : 0 }

    /// The `fraction` quantile (0.5, 0.99) of the latencies, in milliseconds (nearest rank).
    func percentile(_ fraction: Double) -> Double {
        guard !latencies.isEmpty else { return .nan }
        let rank = Int((fraction * Double(latencies.count)).rounded(.up)) - 1
        return Double(latencies[min(max(rank, 0), latencies.count - 1)]) / 1e6
    }

    var p50: Double { percentile(0.50) }
    var p99: Double { percentile(0.99) }

    /// The share of answers in each latency band, e.g. "< 1 ms 80.1 %, 1-2 ms 18.6 %, …":
    /// shows whether a tail is spread out or a distinct step (such as one scheduler tick).
    func distribution(boundaries: [Double] = [0.5, 1, 2, 3, 4, 5, 8]) -> String {
        guard !latencies.isEmpty else { return "no answers" }
        var bands: [String] = []
        var lower = 0.0, start = 0
        for upper in boundaries + [.infinity] {
            let limit = upper.isFinite ? UInt64(upper * 1e6) : .max
            // latencies are sorted: the band ends at the first latency >= limit.
            var end = start
            while end < latencies.count, latencies[end] < limit { end += 1 }
            let share = 100 * Double(end - start) / Double(latencies.count)
            let name = lower == 0 ? "< \(fixed(upper, upper < 1 ? 1 : 0)) ms" : upper.isFinite ? "\(fixed(lower, lower < 1 ? 1 : 0))-\(fixed(upper, upper < 1 ? 1 : 0)) ms" : ">= \(fixed(lower, 0)) ms"
            bands.append("\(name) \(fixed(share, share < 1 ? 2 : 1)) %")
            lower = upper
            start = end
        }
        return bands.joined(separator: ", ")
    }
}
