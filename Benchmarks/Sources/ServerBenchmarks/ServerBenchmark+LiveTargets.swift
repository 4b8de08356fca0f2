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
        if let after = liveLatencyAfterAnswer {
            checks.append(TargetCheck(target: "(the same, from the save's answer) p99 < 5 ms",
                                      measured: "p50 \(fixed(after.percentile(0.5), 3)) ms, p99 \(fixed(after.percentile(0.99), 3)) ms",
                                      met: after.percentile(0.99) < 5, hasErrors: after.missing > 0 || after.samples.isEmpty))
        }
        let rounds = liveRounds()
        if !rounds.isEmpty {
            for (index, round) in rounds.enumerated() {
                say("round \(index + 1): \(grouped(Int(round.with))) saves/s with the subscribers, \(grouped(Int(round.without))) without"
                    + " (mean of the runs before and after) = \(fixed(100 * round.cost, 1)) % less; server CPU per save \(fixed(round.cpuWith, 1)) µs"
                    + " with, \(fixed(round.cpuWithout, 1)) without")
            }
            let cost = median(rounds.map(\.cost))
            checks.append(TargetCheck(target: "saves/s with 100 subscribers cost <= 15 %",
                                      measured: "median of \(rounds.count) rounds \(fixed(100 * cost, 1)) % less (rounds "
                                          + rounds.map { fixed(100 * $0.cost, 1) }.joined(separator: " / ") + " %); server CPU per save "
                                          + "\(fixed(median(rounds.map(\.cpuWith)), 1)) µs with, \(fixed(median(rounds.map(\.cpuWithout)), 1)) without",
                                      met: cost <= 0.15, hasErrors: rounds.contains(where: \.hasErrors)))
        }
        if let memory = silentMemory {
            let growth = memory.after - memory.before
            checks.append(TargetCheck(target: "a subscriber that never reads costs bounded memory (judged: < 64 MB of growth)",
                                      measured: "\(megabytes(memory.before)) -> \(megabytes(memory.after))",
                                      met: growth < 64 << 20, hasErrors: false))
        }
        if let latency = liveLatency, !rounds.isEmpty, let data = reports["live-save-100-1"]?.data {
            let redis = redisPubSubLatency.map { "; Redis pub/sub p99 \(fixed($0.percentile(0.99), 2)) ms" } ?? ""
            recordFigure("change notifications: 100 subscribers while 50 clients save", data: data,
                         result: "save sent → notification read p99 \(fixed(latency.percentile(0.99), 2)) ms\(redis); saves/s "
                            + "\(fixed(100 * median(rounds.map(\.cost)), 1)) % lower with the subscribers "
                            + "(server CPU \(fixed(median(rounds.map(\.cpuWith)), 1)) against \(fixed(median(rounds.map(\.cpuWithout)), 1)) µs "
                            + "per save); medians of \(rounds.count) rounds; targets p99 < 5 ms, cost ≤ 15 %")
        }
        guard !checks.isEmpty else { return }
        say("Live-changes targets (issue 16):")
        for check in checks { say(check.line) }
    }
}

/// One round of saves with the subscribers open, against the runs without them just before
/// and after it.
struct LiveRound {
    /// Saves per second with the subscribers, and the mean of the runs before and after.
    let with: Double
    let without: Double
    /// Server CPU per save, in microseconds, with them and without (the mean of the two runs).
    let cpuWith: Double
    let cpuWithout: Double
    let hasErrors: Bool

    /// What the subscribers cost the saves: the share of saves per second lost.
    var cost: Double { 1 - with / max(without, 1e-9) }
}

extension ServerBenchmark {
    /// The rounds of the live-changes benchmark measured (`live-save-100-N` between
    /// `live-save-0-(N-1)` and `live-save-0-N`).
    func liveRounds() -> [LiveRound] {
        func perSave(_ report: FigureReport) -> Double { report.cpu.server / max(report.measurement.requestsPerSecond, 1e-9) * 1e6 }
        var rounds: [LiveRound] = []
        for round in 1...Self.liveRounds {
            guard let before = reports["live-save-0-\(round - 1)"], let with = reports["live-save-100-\(round)"],
                  let after = reports["live-save-0-\(round)"] else { break }
            rounds.append(LiveRound(with: with.measurement.requestsPerSecond,
                                    without: (before.measurement.requestsPerSecond + after.measurement.requestsPerSecond) / 2,
                                    cpuWith: perSave(with), cpuWithout: (perSave(before) + perSave(after)) / 2,
                                    hasErrors: with.hasErrors || before.hasErrors || after.hasErrors))
        }
        return rounds
    }
}
