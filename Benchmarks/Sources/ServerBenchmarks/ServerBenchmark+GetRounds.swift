import BenchmarkSupport

/// The warm `get` with 50 connections against Redis GET with 50 clients, the issue's main
/// comparison: measured in alternating rounds (Redis, docserver, Redis, docserver, …, Redis),
/// because the shared machine's speed drifts by more than the figures differ. The ratio is
/// the median of docserver's rounds over the median of Redis's runs: one disturbed run of
/// either moves it little.
struct GetComparison {
    /// ours / mean(Redis right before, Redis right after), one per round (shown, not judged).
    let ratios: [Double]
    let requestsPerSecond: [Double]
    let redisRequestsPerSecond: [Double]
    let p99s: [Double]
    let hasErrors: Bool

    var medianRatio: Double { median(requestsPerSecond) / median(redisRequestsPerSecond) }
    var medianRequestsPerSecond: Double { median(requestsPerSecond) }
    var medianP99: Double { median(p99s) }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

extension ServerBenchmark {
    func compareGet50(rounds: Int, what: String, store: BenchmarkStore, session: ServerSession, load: LoadGenerator,
                      redis: RedisServers, workload: @escaping WorkloadFactory) async throws -> GetComparison {
        var yardsticks = [try redisGet(redis, clients: 50, note: rounds > 1 ? ", before round 1" : ", before")]
        var ratios: [Double] = [], rates: [Double] = [], p99s: [Double] = [], hasErrors = false
        for round in 1...rounds {
            let key = rounds > 1 ? "get-50-round\(round)" : "get-50"
            try await measure(key, rounds > 1 ? "\(what), round \(round) of \(rounds)" : what, store: store, session: session, load: load,
                              connections: 50, redis: ("Redis GET, 50 clients (right before)", yardsticks[round - 1]), workload: workload)
            yardsticks.append(try redisGet(redis, clients: 50, note: rounds > 1 ? ", after round \(round)" : ", after"))
            guard let report = reports[key] else { continue }
            let yardstick = (yardsticks[round - 1].requestsPerSecond + yardsticks[round].requestsPerSecond) / 2
            ratios.append(report.measurement.requestsPerSecond / yardstick)
            rates.append(report.measurement.requestsPerSecond)
            p99s.append(report.measurement.p99)
            hasErrors = hasErrors || report.hasErrors
            say("    round \(round): docserver = \(fixed(ratios[ratios.count - 1], 3)) x the mean of Redis right before and right after (\(grouped(Int(yardstick))) req/s)")
        }
        let redisRates = yardsticks.map(\.requestsPerSecond)
        let comparison = GetComparison(ratios: ratios, requestsPerSecond: rates, redisRequestsPerSecond: redisRates, p99s: p99s, hasErrors: hasErrors)
        say("get with 50 connections, warm, \(rounds) round\(rounds == 1 ? "" : "s"): \(rates.map { grouped(Int($0)) }.joined(separator: " / ")) req/s,"
            + " median \(grouped(Int(comparison.medianRequestsPerSecond))); Redis GET -c 50 around them: \(redisRates.map { grouped(Int($0)) }.joined(separator: " / ")) req/s,"
            + " median \(grouped(Int(median(redisRates)))); ratio of medians \(fixed(comparison.medianRatio, 3));"
            + " p99 \(p99s.map { fixed($0, 3) }.joined(separator: " / ")) ms, median \(fixed(comparison.medianP99, 3)) ms")
        return comparison
    }
}
