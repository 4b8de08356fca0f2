import BenchmarkSupport
import Foundation
import GraphCore
import JSONAtomicStore

/// What a request costs with metrics on (`serve --http-port 0`: swift-metrics bootstrapped, every
/// request counted and timed into histograms) against off (no HTTP port: swift-metrics' handlers do
/// nothing), the issue's target being ≤ 3 % on durable saves/s and on `get`. One binary, one
/// store, a fresh server per variant and round, the variants alternating in each round (off, on,
/// on, off, …) so that a drift of the shared machine hits both alike; the cost is judged on the
/// medians over the rounds, of the requests per second and of the server's CPU time per answer
/// (steadier than the rate when other processes share the cores).
///
///     swift run -c release --package-path Benchmarks ServerBenchmarks --metrics-cost [--metrics-rounds N] [--docserver PATH]
extension ServerBenchmark {
    /// The figures of one variant in one round.
    private struct MetricsRound {
        var get: (Measurement, CPUShare)
        var get1: (Measurement, CPUShare)
        var saves: (Measurement, CPUShare)
    }

    func runMetricsCost() async throws {
        say("Server benchmark --metrics-cost (release build), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
        let load = Self.loadAverage()
        say("load average before the run: \(load)")
        JSONAtomicStore.register()
        let store = try sampleStore(objects: 100_000)
        binary = try locateDocserver()
        say("docserver: \(binary)")
        let variants: [(label: String, arguments: [String])] = [("metrics off", []), ("metrics on", ["--http-port", "0"])]
        let rounds = options.metricsRounds ?? (options.quick ? 1 : 4)
        say("\(rounds) round(s), variants alternating; each figure \(options.warmup.nanoseconds / 1_000_000) ms warm-up"
            + " + \(options.duration.nanoseconds / 1_000_000) ms measured")
        var results: [[MetricsRound]] = [[], []]
        for round in 1...rounds {
            // Off first in odd rounds, on first in even ones.
            let order = round % 2 == 1 ? [0, 1] : [1, 0]
            for index in order {
                say("round \(round), \(variants[index].label):")
                results[index].append(try await metricsRound(on: store, arguments: variants[index].arguments))
            }
        }
        say()
        say("Summary: metrics off against on, medians over \(rounds) round(s) [\(store.label)]")
        let figures: [(name: String, pick: (MetricsRound) -> (Measurement, CPUShare))] = [
            ("`get` by ID, 50 connections, warm", { $0.get }),
            ("`get` by ID, 1 connection, warm", { $0.get1 }),
            ("durable saves, 50 clients", { $0.saves }),
        ]
        for figure in figures {
            let off = results[0].map(figure.pick), on = results[1].map(figure.pick)
            let rateOff = median(off.map(\.0.requestsPerSecond)), rateOn = median(on.map(\.0.requestsPerSecond))
            let cpuOff = median(off.map { $0.1.server / $0.0.requestsPerSecond * 1e6 })
            let cpuOn = median(on.map { $0.1.server / $0.0.requestsPerSecond * 1e6 })
            let rateCost = (rateOff - rateOn) / rateOff * 100, cpuCost = (cpuOn - cpuOff) / cpuOff * 100
            let p99Off = median(off.map(\.0.p99)), p99On = median(on.map(\.0.p99))
            say("  \(figure.name): off \(grouped(Int(rateOff.rounded()))) req/s, on \(grouped(Int(rateOn.rounded()))) req/s"
                + " (cost \(signed(rateCost)) %); server CPU per answer off \(fixed(cpuOff, 1)) µs, on \(fixed(cpuOn, 1)) µs (\(signed(cpuCost)) %);"
                + " p99 off \(fixed(p99Off, 3)) ms, on \(fixed(p99On, 3)) ms")
            say("    rounds off: \(off.map { grouped(Int($0.0.requestsPerSecond.rounded())) }.joined(separator: " / "))"
                + "; on: \(on.map { grouped(Int($0.0.requestsPerSecond.rounded())) }.joined(separator: " / "))")
            let met = rateCost <= 3 || cpuCost <= 3
            recordFigure("metrics cost: \(figure.name)", data: "\(grouped(store.shape.total)) objects, \(rounds) rounds",
                         result: "\(signed(rateCost)) % req/s (\(grouped(Int(rateOn.rounded()))) on, \(grouped(Int(rateOff.rounded()))) off),"
                             + " \(signed(cpuCost)) % server CPU per answer; target ≤ 3 %\(met ? "" : ": MISSED")")
        }
        say()
    }

    /// One round of one variant on a fresh server: `get` warm with 50 connections and with 1,
    /// then durable saves of 50 clients, each its own Song.
    private func metricsRound(on store: BenchmarkStore, arguments: [String]) async throws -> MetricsRound {
        let server = try DocServer(binary: binary, model: modelURL, store: store.url,
                                   log: directory.appendingPathComponent("docserver-metrics-\(MonotonicClock.nanoseconds()).log"),
                                   arguments: arguments)
        let round: MetricsRound
        do {
            let session = try ServerSession(server: server)
            var ids: [String] = []
            for entity in ["Artist", "Album", "Song", "Tag"] { ids += try session.ids(of: entity) }
            try session.touch(ids)
            let songs = try session.ids(of: "Song")
            let stride = max(songs.count / 50, 1)
            let owned = (0..<50).map { songs[($0 * stride + stride / 2) % songs.count] }
            let load = LoadGenerator(group: group, host: server.host, port: server.port, warmup: options.warmup, duration: options.duration)
            let get = try await run(session: session, load: load, connections: 50, workload: GetWorkload.factory(ids: ids))
            report("get, 50 connections", get)
            let get1 = try await run(session: session, load: load, connections: 1, workload: GetWorkload.factory(ids: ids))
            report("get, 1 connection", get1)
            let versions = try session.versions(of: owned)
            let saves = try await run(session: session, load: load, connections: 50,
                                      workload: UpdateWorkload.factory(songs: owned, versions: versions, changesTitle: true))
            report("durable saves, 50 clients", saves)
            round = MetricsRound(get: get, get1: get1, saves: saves)
        } catch {
            say("docserver: \(server.stop()); its log ends with:\n\(server.logTail())")
            throw error
        }
        let ended = server.stop()
        if ended != "exit status 0" { say("    docserver ended: \(ended) (expected exit status 0)") }
        return round
    }

    private func report(_ what: String, _ figure: (Measurement, CPUShare)) {
        let (m, cpu) = figure
        say("    \(what): \(grouped(Int(m.requestsPerSecond.rounded()))) req/s, p50 \(fixed(m.p50, 3)) ms, p99 \(fixed(m.p99, 3)) ms;"
            + " server CPU per answer \(fixed(cpu.server / m.requestsPerSecond * 1e6, 1)) µs; \(cpu.describe(server: "docserver", client: "load client"))"
            + (m.errors > 0 ? "; WITH ERRORS: \(m.errors), first: \(m.firstError ?? "?")" : ""))
    }

    private func signed(_ value: Double) -> String { (value >= 0 ? "+" : "") + fixed(value, 1) }
}
