import BenchmarkSupport

extension ServerBenchmark {
    /// The issue's targets, each with the figure it is judged on and whether it was met.
    func printTargets(stores: [BenchmarkStore]) {
        var checks: [TargetCheck] = []
        if let get = get50 {
            let rounds = get.ratios.count > 1 ? "median of \(get.ratios.count) rounds, " : ""
            checks.append(TargetCheck(target: "get with 50 connections (warm) >= 1.0 x Redis GET with 50 clients (redis-benchmark)",
                                      measured: "\(rounds)\(grouped(Int(get.medianRequestsPerSecond))) req/s"
                                          + " / median Redis \(grouped(Int(median(get.redisRequestsPerSecond)))) req/s = \(fixed(get.medianRatio, 3))",
                                      met: get.medianRatio >= 1.0, hasErrors: get.hasErrors))
            checks.append(TargetCheck(target: "get with 50 connections (warm) >= 1.0 x Redis GET with 50 connections of our load generator (same client)",
                                      measured: "\(rounds)\(grouped(Int(get.medianRequestsPerSecond))) req/s"
                                          + " / median Redis \(grouped(Int(median(get.redisThroughLoadGenerator)))) req/s = \(fixed(get.medianRatioSameClient, 3))",
                                      met: get.medianRatioSameClient >= 1.0, hasErrors: get.hasErrors))
            checks.append(TargetCheck(target: "p99 < 1 ms (get, 50 connections, warm)", measured: "\(rounds)p99 \(fixed(get.medianP99, 3)) ms",
                                      met: get.medianP99 < 1, hasErrors: get.hasErrors))
        }
        if let get = reports["get-50-saving"] {
            let ratio = get.redis.map { get.measurement.requestsPerSecond / $0.figure.requestsPerSecond } ?? 0
            let sameClient = get.sameClientRedis.map { get.measurement.requestsPerSecond / $0.requestsPerSecond } ?? 0
            checks.append(TargetCheck(target: "get with 50 connections while 50 other clients save: >= 1.0 x Redis GET (redis-benchmark), p99 < 1 ms",
                                      measured: "\(grouped(Int(get.measurement.requestsPerSecond))) req/s = \(fixed(ratio, 3)) x"
                                          + " (\(fixed(sameClient, 3)) x Redis through our load generator), p99 \(fixed(get.measurement.p99, 3)) ms",
                                      met: ratio >= 1.0 && get.measurement.p99 < 1, hasErrors: get.hasErrors))
            if let peer = redisGetBesideSets {
                checks.append(TargetCheck(target: "get with 50 connections while 50 other clients save: >= 1.0 x Redis GET while 50 other clients SET durably"
                                              + " (both through our load generator), p99 < 1 ms",
                                          measured: "\(grouped(Int(get.measurement.requestsPerSecond))) / \(grouped(Int(peer.requestsPerSecond))) req/s"
                                              + " = \(fixed(get.measurement.requestsPerSecond / peer.requestsPerSecond, 3)) x,"
                                              + " p99 \(fixed(get.measurement.p99, 3)) ms (Redis's \(fixed(peer.p99, 3)) ms)",
                                          met: get.measurement.requestsPerSecond >= peer.requestsPerSecond && get.measurement.p99 < 1,
                                          hasErrors: get.hasErrors))
            }
        }
        if let one = reports["fetch-1"], let fifty = reports["fetch-50"] {
            let ratio = fifty.measurement.requestsPerSecond / max(one.measurement.requestsPerSecond, 1e-9)
            checks.append(TargetCheck(target: "fetch among 89,000 Songs: 50 connections >= 1.6 x the throughput of 1",
                                      measured: "\(grouped(Int(fifty.measurement.requestsPerSecond))) / \(grouped(Int(one.measurement.requestsPerSecond))) req/s = \(fixed(ratio, 2)) x",
                                      met: ratio >= 1.6, hasErrors: one.hasErrors || fifty.hasErrors))
        }
        for connections in [1, 50] {
            guard let quiet = reports["fetch-\(connections)"], let busy = reports["fetch-\(connections)-saving"] else { continue }
            let ratio = busy.measurement.p99 / max(quiet.measurement.p99, 1e-9)
            checks.append(TargetCheck(target: "fetch p99 does not grow while 50 clients save (\(connections) connection\(connections == 1 ? "" : "s"); judged <= 1.2 x)",
                                      measured: "p99 \(fixed(busy.measurement.p99, 3)) ms while saving, \(fixed(quiet.measurement.p99, 3)) ms without = \(fixed(ratio, 2)) x",
                                      met: ratio <= 1.2, hasErrors: quiet.hasErrors || busy.hasErrors))
        }
        let fifties = stores.compactMap { store in reports["save-\(store.shape.total)-50"].map { (store, $0) } }
        if let (store, saves) = fifties.last {
            checks.append(TargetCheck(target: ">= 10,000 acknowledged durable saves/s with 50 clients on the \(store.label)",
                                      measured: "\(grouped(Int(saves.measurement.requestsPerSecond))) saves/s"
                                          + (saves.redis.map { " = \(fixed(saves.measurement.requestsPerSecond / $0.figure.requestsPerSecond, 3)) x Redis durable SET" } ?? ""),
                                      met: saves.measurement.requestsPerSecond >= 10_000, hasErrors: saves.hasErrors))
        }
        if fifties.count > 1 {
            let rates = fifties.map(\.1.measurement.requestsPerSecond)
            let spread = (rates.max() ?? 0) / max(rates.min() ?? 0, 1e-9)
            checks.append(TargetCheck(target: "durable saves with 50 clients within 1.3 x across \(fifties.map { grouped($0.0.shape.total) }.joined(separator: " / ")) objects",
                                      measured: fifties.map { "\(grouped(Int($0.1.measurement.requestsPerSecond)))/s" }.joined(separator: ", ") + " = \(fixed(spread, 2)) x",
                                      met: spread <= 1.3, hasErrors: fifties.contains { $0.1.hasErrors }))
        }
        if let largest = stores.last, let one = reports["save-\(largest.shape.total)-1"] {
            checks.append(TargetCheck(target: "durable save, 1 client: p50 <= 1 ms on the \(largest.label)",
                                      measured: "p50 \(fixed(one.measurement.p50, 3)) ms", met: one.measurement.p50 <= 1, hasErrors: one.hasErrors))
        }
        if let memory {
            let ratio = Double(memory.after) / Double(max(memory.fresh, 1))
            checks.append(TargetCheck(target: "resident memory after \(grouped(memory.saves)) saves <= 1.2 x a fresh start on the same data",
                                      measured: "\(megabytes(memory.after)) / \(megabytes(memory.fresh)) = \(fixed(ratio, 3)) x",
                                      met: ratio <= 1.2, hasErrors: false))
        }
        recordHeadlineFigures(fifties: fifties)
        say("Targets:")
        for check in checks { say(check.line) }
        let withErrors = reports.filter { $0.value.hasErrors }.keys.sorted()
        if !withErrors.isEmpty { say("figures with errors: \(withErrors.joined(separator: ", "))") }
        let shared = reports.filter { $0.value.cpu.other > 0.2 }.keys.sorted()
        if !shared.isEmpty {
            say("figures measured while other processes used more than 0.2 cores (lower and noisier): \(shared.joined(separator: ", "))")
        }
    }

    /// The figures the README's table shows (``recordFigure(_:data:result:)``).
    private func recordHeadlineFigures(fifties: [(BenchmarkStore, FigureReport)]) {
        if let get = get50 {
            recordFigure("`get` by ID over TCP, 50 connections", data: "\(grouped(get.objectCount)) objects",
                         result: "\(grouped(Int(get.medianRequestsPerSecond))) req/s = \(fixed(get.medianRatioSameClient, 2)) x Redis GET"
                             + " (same load generator); server CPU \(fixed(median(get.cpuPerAnswer), 1)) µs per get")
        }
        for (store, saves) in fifties {
            let redis = saves.redis.map { " = \(fixed(saves.measurement.requestsPerSecond / $0.figure.requestsPerSecond, 2)) x Redis SET with appendfsync always" } ?? ""
            let cpu = saves.serverMicrosecondsPerAnswer.map { "; server CPU \(fixed($0, 1)) µs per save" } ?? ""
            recordFigure("durable saves over TCP, 50 clients", data: "\(grouped(store.shape.total)) objects",
                         result: "\(grouped(Int(saves.measurement.requestsPerSecond)))/s" + redis + cpu)
        }
    }
}
