import BenchmarkSupport
import Foundation
import GraphCore
import JSONAtomicStore
import NIOCore

/// One server the `--fetch-saving` figures compare: a binary and the `serve` options it runs with.
struct ServerVariant {
    let label: String
    let binary: String
    let arguments: [String]

    /// `spec` is "[BINARY] [serve options]": a first word that names a file (an absolute or
    /// relative path) is the binary, the rest are options; else every word is an option.
    init(spec: String, defaultBinary: String) {
        var words = spec.split(separator: " ").map(String.init)
        if let first = words.first, first.hasPrefix("/") || first.hasPrefix("."), FileManager.default.fileExists(atPath: first) {
            binary = first
            words.removeFirst()
        } else {
            binary = defaultBinary
        }
        arguments = words
        label = spec.isEmpty ? "defaults" : spec
    }
}

/// The figures of one variant in one round: fetch alone and while saving, 1 and 50 connections.
private struct FetchRound {
    var alone: [Int: Measurement] = [:]
    var saving: [Int: Measurement] = [:]
    var saves: [Int: Measurement] = [:]
    /// Saves of the 50 clients without reads beside them.
    var savesAlone: Measurement?
}

extension ServerBenchmark {
    /// `--fetch-saving`: `fetch` of 100 Songs by a non-indexed predicate among 89,000, with 1
    /// and 50 connections, each alone and while 50 other clients save (each its own Song's
    /// title), on a fresh server per variant and round; the variants alternate in each round so
    /// that a drift of the shared machine hits them alike. Prints every figure, then per
    /// variant the medians over the rounds of p50/p99 alone and while saving.
    func runFetchWhileSaving() async throws {
        say("Server benchmark --fetch-saving (release build), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
        let load = Self.loadAverage()
        say("load average before the run: \(load)")
        JSONAtomicStore.register()
        let store = try sampleStore(objects: 100_000)
        binary = try locateDocserver()
        let variants = (options.variants.isEmpty ? [""] : options.variants).map { ServerVariant(spec: $0, defaultBinary: binary) }
        for variant in variants { say("variant \"\(variant.label)\": \(variant.binary) serve … \(variant.arguments.joined(separator: " "))") }
        let rounds = options.fetchRounds ?? (options.quick ? 1 : 3)
        say("\(rounds) round(s); each figure \(options.warmup.nanoseconds / 1_000_000) ms warm-up + \(options.duration.nanoseconds / 1_000_000) ms measured")
        say()
        var results = Array(repeating: [FetchRound](), count: variants.count)
        for round in 1...rounds {
            for (index, variant) in variants.enumerated() {
                say("round \(round), variant \"\(variant.label)\":")
                results[index].append(try await fetchRound(on: store, variant: variant))
            }
        }
        say("Summary: fetch of 100 Songs among \(grouped(store.shape.songs)), medians over \(rounds) round(s) [\(store.label)]")
        for (index, variant) in variants.enumerated() {
            let alone = results[index].compactMap(\.savesAlone)
            say("  \"\(variant.label)\", durable saves of 50 clients without reads: \(grouped(Int(median(alone.map(\.requestsPerSecond)).rounded())))/s,"
                + " p99 \(fixed(median(alone.map(\.p99)), 1)) ms")
            for connections in [1, 50] {
                let alone = results[index].compactMap { $0.alone[connections] }
                let saving = results[index].compactMap { $0.saving[connections] }
                let saves = results[index].compactMap { $0.saves[connections] }
                let p99Alone = median(alone.map(\.p99)), p99Saving = median(saving.map(\.p99))
                say("  \"\(variant.label)\", \(connections == 1 ? "1 connection" : "50 connections"):"
                    + " alone \(grouped(Int(median(alone.map(\.requestsPerSecond)).rounded()))) req/s, p50 \(fixed(median(alone.map(\.p50)), 1)) ms,"
                    + " p99 \(fixed(p99Alone, 1)) ms; while 50 clients save \(grouped(Int(median(saving.map(\.requestsPerSecond)).rounded()))) req/s,"
                    + " p50 \(fixed(median(saving.map(\.p50)), 1)) ms, p99 \(fixed(p99Saving, 1)) ms (\(fixed(p99Saving / p99Alone, 2)) x alone);"
                    + " saves meanwhile \(grouped(Int(median(saves.map(\.requestsPerSecond)).rounded())))/s, p99 \(fixed(median(saves.map(\.p99)), 1)) ms")
            }
        }
        say()
    }

    /// One round of one variant on a fresh server.
    private func fetchRound(on store: BenchmarkStore, variant: ServerVariant) async throws -> FetchRound {
        let server = try DocServer(binary: variant.binary, model: modelURL, store: store.url,
                                   log: directory.appendingPathComponent("docserver-fetch-\(MonotonicClock.nanoseconds()).log"),
                                   arguments: variant.arguments)
        var round = FetchRound()
        do {
            let session = try ServerSession(server: server)
            var ids: [String] = []
            for entity in ["Artist", "Album", "Song", "Tag"] { ids += try session.ids(of: entity) }
            let songs = try session.ids(of: "Song")
            try session.touch(ids)
            let stride = max(songs.count / 50, 1)
            let owned = (0..<50).map { songs[($0 * stride + stride / 2) % songs.count] }
            let load = LoadGenerator(group: group, host: server.host, port: server.port, warmup: options.warmup, duration: options.duration)
            let saver = LoadGenerator(group: backgroundGroup, host: server.host, port: server.port,
                                      warmup: .milliseconds(1), duration: options.warmup + options.duration + .milliseconds(500))
            let versions = try session.versions(of: owned)
            let alone = try await load.run(connections: 50, workload: UpdateWorkload.factory(songs: owned, versions: versions, changesTitle: true))
            round.savesAlone = alone
            say("    durable saves, 50 clients, no reads: \(grouped(Int(alone.requestsPerSecond.rounded())))/s, p50 \(fixed(alone.p50, 2)) ms,"
                + " p99 \(fixed(alone.p99, 2)) ms" + (alone.errors > 0 ? "; WITH ERRORS: \(alone.errors), first: \(alone.firstError ?? "?")" : ""))
            for connections in [1, 50] {
                let workload = FetchWorkload.factory(songCount: songs.count, size: 100)
                round.alone[connections] = try await fetchFigure(session: session, load: load, connections: connections, workload: workload,
                                                                 what: "alone")
                let versions = try session.versions(of: owned)
                async let saving = saver.run(connections: 50, workload: UpdateWorkload.factory(songs: owned, versions: versions, changesTitle: true))
                round.saving[connections] = try await fetchFigure(session: session, load: load, connections: connections, workload: workload,
                                                                  what: "WHILE 50 other clients save")
                let saves = try await saving
                round.saves[connections] = saves
                say("      meanwhile: \(grouped(Int(saves.requestsPerSecond.rounded()))) durable saves/s, p50 \(fixed(saves.p50, 2)) ms,"
                    + " p99 \(fixed(saves.p99, 2)) ms" + (saves.errors > 0 ? "; WITH ERRORS: \(saves.errors), first: \(saves.firstError ?? "?")" : ""))
            }
        } catch {
            say("docserver: \(server.stop()); its log ends with:\n\(server.logTail())")
            throw error
        }
        let ended = server.stop()
        if ended != "exit status 0" { say("    docserver ended: \(ended) (expected exit status 0)") }
        return round
    }

    private func fetchFigure(session: ServerSession, load: LoadGenerator, connections: Int, workload: @escaping WorkloadFactory,
                             what: String) async throws -> Measurement {
        let (measurement, cpu) = try await run(session: session, load: load, connections: connections, workload: workload)
        let m = measurement
        say("    fetch, \(connections == 1 ? "1 connection" : "\(connections) connections"), \(what): \(grouped(Int(m.requestsPerSecond.rounded()))) req/s,"
            + " p50 \(fixed(m.p50, 2)) ms, p99 \(fixed(m.p99, 2)) ms (max \(fixed(m.percentile(1), 2))); \(cpu.describe(server: "docserver", client: "load client"))"
            + (m.errors > 0 ? "; WITH ERRORS: \(m.errors), first: \(m.firstError ?? "?")" : ""))
        return measurement
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
