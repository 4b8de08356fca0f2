import BenchmarkSupport

extension ServerBenchmark {
    /// The live-changes targets of issue 16, and whether each was met.
    func printLiveTargets() {
        var checks: [TargetCheck] = []
        if let latency = liveLatency {
            let redis = redisPubSubLatency.map { " (Redis pub/sub p99 \(fixed($0.percentile(0.99), 3)) ms: \(fixed(latency.percentile(0.99) / $0.percentile(0.99), 2)) x)" } ?? ""
            checks.append(TargetCheck(target: "save -> notification p99 < 5 ms, 100 subscribers, 50 clients saving",
                                      measured: "p50 \(fixed(latency.percentile(0.5), 3)) ms, p99 \(fixed(latency.percentile(0.99), 3)) ms\(redis)",
                                      met: latency.percentile(0.99) < 5, hasErrors: latency.missing > 0 || latency.samples.isEmpty))
        }
        if let without = reports["live-save-0"], let with = reports["live-save-100"] {
            let cost = 1 - with.measurement.requestsPerSecond / max(without.measurement.requestsPerSecond, 1e-9)
            checks.append(TargetCheck(target: "saves/s with 100 subscribers cost <= 15 %",
                                      measured: "\(grouped(Int(with.measurement.requestsPerSecond))) with, \(grouped(Int(without.measurement.requestsPerSecond))) without = \(fixed(100 * cost, 1)) % less",
                                      met: cost <= 0.15, hasErrors: with.hasErrors || without.hasErrors))
        }
        if let memory = silentMemory {
            let growth = memory.after - memory.before
            checks.append(TargetCheck(target: "a subscriber that never reads costs bounded memory (judged: < 64 MB of growth)",
                                      measured: "\(megabytes(memory.before)) -> \(megabytes(memory.after))",
                                      met: growth < 64 << 20, hasErrors: false))
        }
        guard !checks.isEmpty else { return }
        say("Live-changes targets (issue 16):")
        for check in checks { say(check.line) }
    }
}
