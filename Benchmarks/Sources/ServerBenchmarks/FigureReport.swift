import BenchmarkSupport

/// One printed figure: what was measured, on how much data, the numbers, and the Redis
/// figure it is compared with (ours / Redis).
struct FigureReport {
    let what: String
    let data: String
    let measurement: Measurement
    let cpu: CPUShare
    let redis: (label: String, figure: RedisBaseline.Figure)?
    /// Redis measured by our own load generator (the client of this figure), when it was.
    var sameClientRedis: RedisBaseline.Figure?
    /// Whether to print the latency distribution (for the figures the p99 target is judged on).
    var showsDistribution = false
    /// Whether to print the server's CPU per answer (for figures where it serves this load only).
    var showsCPUPerAnswer = false

    var hasErrors: Bool { measurement.errors > 0 || measurement.warmupErrors > 0 || measurement.answers == 0 }

    /// The server's CPU time per answer, in µs: steadier than req/s on a shared machine (nil
    /// when nothing was answered).
    var serverMicrosecondsPerAnswer: Double? {
        measurement.requestsPerSecond > 0 ? cpu.server / measurement.requestsPerSecond * 1e6 : nil
    }

    var lines: [String] {
        let m = measurement
        var lines = ["\(what) [\(data)]:"]
        lines.append("    \(grouped(Int(m.requestsPerSecond.rounded()))) req/s, p50 \(fixed(m.p50, 3)) ms, p99 \(fixed(m.p99, 3)) ms"
                     + " (p99.9 \(fixed(m.percentile(0.999), 3)), max \(fixed(m.percentile(1), 3)))"
                     + "; \(grouped(m.answers)) answers in \(fixed(m.seconds, 2)) s; \(cpu.describe(server: "docserver", client: "load client"))"
                     + (showsCPUPerAnswer ? serverMicrosecondsPerAnswer.map { "; server CPU per answer \(fixed($0, 1)) µs" } ?? "" : ""))
        if showsDistribution { lines.append("    latency distribution: \(m.distribution())") }
        if hasErrors {
            lines.append("    WITH ERRORS: \(grouped(m.errors)) of \(grouped(m.answers)) answers in the window failed, \(m.warmupErrors) during the warm-up"
                         + (m.firstError.map { "; first: \($0)" } ?? ""))
        }
        if let redis {
            lines.append("    = \(fixed(m.requestsPerSecond / redis.figure.requestsPerSecond, 3)) x \(redis.label)"
                         + " (\(grouped(Int(redis.figure.requestsPerSecond.rounded()))) req/s); p99 \(fixed(m.p99 / redis.figure.p99, 2)) x Redis's")
        }
        if let same = sameClientRedis {
            lines.append("    = \(fixed(m.requestsPerSecond / same.requestsPerSecond, 3)) x Redis GET through our load generator"
                         + " (\(grouped(Int(same.requestsPerSecond.rounded()))) req/s, p99 \(fixed(same.p99, 3)) ms)")
        }
        return lines
    }
}

/// One of the issue's targets and whether it was met.
struct TargetCheck {
    let target: String
    let measured: String
    let met: Bool
    let hasErrors: Bool

    var line: String {
        let verdict = hasErrors ? "NOT MET (the figure has errors)" : (met ? "MET" : "NOT MET")
        return "  \(target): \(measured) -> \(verdict)"
    }
}
