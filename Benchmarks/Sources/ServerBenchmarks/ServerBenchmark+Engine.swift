import BenchmarkSupport
import Foundation
import NIOCore

extension ServerBenchmark {
    /// `get` with 50 connections and `fetch` with 1 and 50, each while 50 other clients
    /// save (each its own Song's title, so that the fetch by `plays` keeps its answers), on
    /// `store`: readers must not wait for the writer.
    /// `onlyGet`: the `get` figure only (`--get`).
    func measureReadsWhileSaving(on store: BenchmarkStore, redis: RedisServers, onlyGet: Bool = false) async throws {
        try await withServer(on: store) { session, load in
            var ids: [String] = []
            for entity in ["Artist", "Album", "Song", "Tag"] { ids += try session.ids(of: entity) }
            let songs = try session.ids(of: "Song")
            try session.touch(ids)
            // Songs of their own for the savers, away from the ones the get picks more often than others.
            let stride = max(songs.count / 50, 1)
            let owned = (0..<50).map { songs[($0 * stride + stride / 2) % songs.count] }
            let saver = LoadGenerator(group: backgroundGroup, host: session.server.host, port: session.server.port,
                                      warmup: .milliseconds(1), duration: options.warmup + options.duration + .milliseconds(500))
            let get = "get of 1 object by ID (random among all \(grouped(ids.count))), \(50) connections, warm"
            let fetch = "fetch of 100 Songs by predicate `plays >= %d AND plays < %d` (of \(grouped(songs.count)) Songs)"
            let runs: [(key: String, what: String, connections: Int, workload: WorkloadFactory)] = [
                ("get-50-saving", get, 50, GetWorkload.factory(ids: ids)),
                ("fetch-1-saving", "\(fetch), 1 connection, sequential", 1, FetchWorkload.factory(songCount: songs.count, size: 100)),
                ("fetch-50-saving", "\(fetch), 50 connections", 50, FetchWorkload.factory(songCount: songs.count, size: 100)),
            ]
            for run in runs where !onlyGet || run.key.hasPrefix("get") {
                let yardstick = run.key.hasPrefix("get") ? ("Redis GET, 50 clients (redis-benchmark)", try redisGet(redis, clients: 50)) : nil
                let sameClient = run.key.hasPrefix("get") ? try await redisGetThroughLoadGenerator(redis, clients: 50) : nil
                let versions = try session.versions(of: owned)
                async let saving = saver.run(connections: 50, workload: UpdateWorkload.factory(songs: owned, versions: versions, changesTitle: true))
                try await measure(run.key, "\(run.what), WHILE 50 other clients save", store: store, session: session, load: load,
                                  connections: run.connections, redis: yardstick, sameClientRedis: sameClient, workload: run.workload)
                let saves = try await saving
                savesBesideReads[run.key] = saves
                say("    meanwhile: \(grouped(Int(saves.requestsPerSecond.rounded()))) durable saves/s by the 50 saving clients,"
                    + " p50 \(fixed(saves.p50, 3)) ms, p99 \(fixed(saves.p99, 3)) ms"
                    + (saves.errors > 0 ? "; WITH ERRORS: \(saves.errors) failed, first: \(saves.firstError ?? "?")" : ""))
                if run.key.hasPrefix("get"), let ours = reports[run.key] {
                    let peer = try await redisGetWhileSetting(redis, clients: 50)
                    redisGetBesideSets = peer.get
                    say("    docserver get while saving = \(fixed(ours.measurement.requestsPerSecond / peer.get.requestsPerSecond, 3)) x Redis GET while setting,"
                        + " p99 \(fixed(ours.measurement.p99, 3)) ms against Redis's \(fixed(peer.get.p99, 3)) ms;"
                        + " writes meanwhile \(grouped(Int(saves.requestsPerSecond.rounded()))) saves/s against \(grouped(Int(peer.sets.requestsPerSecond.rounded()))) SETs/s")
                }
            }
        }
    }

    /// Resident memory of the server after at least `saves` durable saves (50 clients, each
    /// updating its own Song) against a fresh start on the same store file afterwards.
    func measureMemory(on store: BenchmarkStore, saves: Int) async throws {
        var afterSaves = 0, started = 0, saved = 0, seconds = 0.0
        try await withServer(on: store) { session, _ in
            let songs = try session.ids(of: "Song")
            let stride = max(songs.count / 50, 1)
            let owned = (0..<50).map { songs[($0 * stride) % songs.count] }
            started = ProcessCPU.residentBytes(pid: session.server.processIdentifier)
            let start = MonotonicClock.nanoseconds()
            while saved < saves {
                let versions = try session.versions(of: owned)
                let load = LoadGenerator(group: group, host: session.server.host, port: session.server.port,
                                         warmup: .milliseconds(1), duration: .seconds(5))
                let measurement = try await load.run(connections: 50, workload: UpdateWorkload.factory(songs: owned, versions: versions))
                if measurement.errors > 0 { throw BenchmarkError("saves failed: \(measurement.firstError ?? "?")") }
                saved += measurement.answers
            }
            seconds = Double(MonotonicClock.nanoseconds() - start) / 1e9
            afterSaves = ProcessCPU.residentBytes(pid: session.server.processIdentifier)
        }
        var fresh = 0
        try await withServer(on: store) { session, _ in
            _ = try session.ids(of: "Song")  // one request, as before the saves
            fresh = ProcessCPU.residentBytes(pid: session.server.processIdentifier)
        }
        memory = (saved, afterSaves, fresh)
        say("resident memory [\(store.label)]: \(megabytes(started)) at start, \(megabytes(afterSaves)) after \(grouped(saved)) durable saves"
            + " (50 clients, \(fixed(seconds, 1)) s), \(megabytes(fresh)) on a fresh start on the same store afterwards"
            + " = \(fixed(Double(afterSaves) / Double(max(fresh, 1)), 3)) x")
        say()
    }
}
