import BenchmarkSupport

extension ServerBenchmark {
    /// The issue's targets, each with the figure it is judged on and whether it was met.
    func printTargets(small: BenchmarkStore) {
        var checks: [TargetCheck] = []
        if let get = get50 {
            let rounds = get.ratios.count > 1 ? "median of \(get.ratios.count) rounds, " : ""
            checks.append(TargetCheck(target: "get with 50 connections (warm) >= 0.5 x Redis GET with 50 clients",
                                      measured: "\(rounds)\(grouped(Int(get.medianRequestsPerSecond))) req/s"
                                          + " / median Redis \(grouped(Int(median(get.redisRequestsPerSecond)))) req/s = \(fixed(get.medianRatio, 3))",
                                      met: get.medianRatio >= 0.5, hasErrors: get.hasErrors))
            checks.append(TargetCheck(target: "p99 < 2 ms (get, 50 connections, warm)", measured: "\(rounds)p99 \(fixed(get.medianP99, 3)) ms",
                                      met: get.medianP99 < 2, hasErrors: get.hasErrors))
        }
        for (key, label) in [("get-1", "get, 1 connection, warm"), ("get-50-cold", "get, 50 connections, cold")] {
            guard let get = reports[key] else { continue }
            checks.append(TargetCheck(target: "p99 < 2 ms (\(label))", measured: "p99 \(fixed(get.measurement.p99, 3)) ms",
                                      met: get.measurement.p99 < 2, hasErrors: get.hasErrors))
        }
        if let saves = reports["save-\(small.shape.total)-50"] {
            checks.append(TargetCheck(target: ">= 1,000 acknowledged durable saves/s with 50 clients on the \(small.label)",
                                      measured: "\(grouped(Int(saves.measurement.requestsPerSecond))) saves/s",
                                      met: saves.measurement.requestsPerSecond >= 1000, hasErrors: saves.hasErrors))
        }
        say("Targets:")
        for check in checks { say(check.line) }
        let withErrors = reports.filter { $0.value.hasErrors }.keys.sorted()
        if !withErrors.isEmpty { say("figures with errors: \(withErrors.joined(separator: ", "))") }
        let shared = reports.filter { $0.value.cpu.other > 0.2 }.keys.sorted()
        if !shared.isEmpty {
            say("figures measured while other processes used more than 0.2 cores (lower and noisier): \(shared.joined(separator: ", "))")
        }
    }
}
