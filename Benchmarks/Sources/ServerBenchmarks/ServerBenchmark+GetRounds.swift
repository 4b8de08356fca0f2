import BenchmarkSupport

/// The warm `get` with 50 connections against Redis GET with 50 clients, the issue's main
/// comparison: measured in alternating rounds (Redis, docserver, Redis, docserver, …, Redis),
/// because the shared machine's speed drifts by more than the figures differ. Redis is
/// measured twice each time: by redis-benchmark (its own C client) and by our own load
/// generator (the client the docserver figures use, so that both servers face the same client
/// cost on the 2 shared cores). Each ratio is the median of docserver's rounds over the median
/// of that Redis figure's runs: one disturbed run of either moves it little.
struct GetComparison {
    /// ours / mean(redis-benchmark right before, right after), one per round (shown, not judged).
    let ratios: [Double]
    let requestsPerSecond: [Double]
    /// redis-benchmark's figures, before round 1 and after each round.
    let redisRequestsPerSecond: [Double]
    /// Our load generator's Redis figures, before round 1 and after each round.
    let redisThroughLoadGenerator: [Double]
    let p99s: [Double]
    /// The server's CPU time per answer of each round, in µs.
    let cpuPerAnswer: [Double]
    let hasErrors: Bool
    /// The objects of the store the gets read.
    let objectCount: Int

    /// Against redis-benchmark.
    var medianRatio: Double { median(requestsPerSecond) / median(redisRequestsPerSecond) }
    /// Against Redis driven by our load generator (the same client as ours).
    var medianRatioSameClient: Double { median(requestsPerSecond) / median(redisThroughLoadGenerator) }
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
        var sameClient = [try await redisGetThroughLoadGenerator(redis, clients: 50, note: rounds > 1 ? ", before round 1" : ", before")]
        var ratios: [Double] = [], rates: [Double] = [], p99s: [Double] = [], cpuPerAnswer: [Double] = [], hasErrors = false
        for round in 1...rounds {
            let key = rounds > 1 ? "get-50-round\(round)" : "get-50"
            try await measure(key, rounds > 1 ? "\(what), round \(round) of \(rounds)" : what, store: store, session: session, load: load,
                              connections: 50, redis: ("Redis GET, 50 clients (redis-benchmark, right before)", yardsticks[round - 1]), workload: workload)
            let note = rounds > 1 ? ", after round \(round)" : ", after"
            sameClient.append(try await redisGetThroughLoadGenerator(redis, clients: 50, note: note))
            yardsticks.append(try redisGet(redis, clients: 50, note: note))
            guard let report = reports[key] else { continue }
            let yardstick = (yardsticks[round - 1].requestsPerSecond + yardsticks[round].requestsPerSecond) / 2
            let sameClientYardstick = (sameClient[round - 1].requestsPerSecond + sameClient[round].requestsPerSecond) / 2
            ratios.append(report.measurement.requestsPerSecond / yardstick)
            rates.append(report.measurement.requestsPerSecond)
            p99s.append(report.measurement.p99)
            if let perAnswer = report.serverMicrosecondsPerAnswer { cpuPerAnswer.append(perAnswer) }
            hasErrors = hasErrors || report.hasErrors
            say("    round \(round): docserver = \(fixed(ratios[ratios.count - 1], 3)) x the mean of redis-benchmark right before and after (\(grouped(Int(yardstick))) req/s),"
                + " \(fixed(report.measurement.requestsPerSecond / sameClientYardstick, 3)) x Redis through our load generator (\(grouped(Int(sameClientYardstick))) req/s)")
        }
        let redisRates = yardsticks.map(\.requestsPerSecond)
        let sameClientRates = sameClient.map(\.requestsPerSecond)
        let comparison = GetComparison(ratios: ratios, requestsPerSecond: rates, redisRequestsPerSecond: redisRates,
                                       redisThroughLoadGenerator: sameClientRates, p99s: p99s, cpuPerAnswer: cpuPerAnswer, hasErrors: hasErrors,
                                       objectCount: store.shape.total)
        say("get with 50 connections, warm, \(rounds) round\(rounds == 1 ? "" : "s"): \(rates.map { grouped(Int($0)) }.joined(separator: " / ")) req/s,"
            + " median \(grouped(Int(comparison.medianRequestsPerSecond)));"
            + " p99 \(p99s.map { fixed($0, 3) }.joined(separator: " / ")) ms, median \(fixed(comparison.medianP99, 3)) ms;"
            + " server CPU per answer \(cpuPerAnswer.map { fixed($0, 1) }.joined(separator: " / ")) µs")
        say("    Redis GET through our load generator around them: \(sameClientRates.map { grouped(Int($0)) }.joined(separator: " / ")) req/s,"
            + " median \(grouped(Int(median(sameClientRates)))), p99 \(sameClient.map { fixed($0.p99, 3) }.joined(separator: " / ")) ms;"
            + " ratio of medians \(fixed(comparison.medianRatioSameClient, 3)) (the same client for both)")
        say("    Redis GET by redis-benchmark -c 50 around them: \(redisRates.map { grouped(Int($0)) }.joined(separator: " / ")) req/s,"
            + " median \(grouped(Int(median(redisRates)))), p99 \(yardsticks.map { fixed($0.p99, 3) }.joined(separator: " / ")) ms;"
            + " ratio of medians \(fixed(comparison.medianRatio, 3))")
        return comparison
    }
}
