import BenchmarkSupport
import Foundation
import GraphCore
import JSONAtomicStore

/// `ServerBenchmarks --indexes`: the server's fetch through fetch indexes (issue 17), on one
/// store of the sample model holding 1,000,000 Songs (`--index-songs N`):
///
/// 1. The store is opened by a server with the sample model and by one whose Song declares two
///    fetch indexes (`byPlays` on `plays`, `byTitle` on `title`): time to listening, and the
///    server's own account of building its read state (indexes included).
/// 2. On the indexed server, in alternating rounds: `get` of one random Song by ID and `fetch`
///    of one random Song by `plays == %d` (indexed), 50 connections each; the ratio of the
///    medians. Then `fetch` by `title == %@`, the 20 most played, and `plays ==` on 1 connection.
/// 3. PostgreSQL 15 on the same machine (a private cluster): a table of the same Songs with
///    B-tree indexes on `plays` and `title`; pgbench with 50 clients, a custom script looking up
///    one random Song by `plays` (simple protocol, pgbench's default, and prepared). Ratio:
///    docserver's indexed fetch / pgbench's lookups per second.
/// 4. Durable saves (each client updates its own Song's `plays`, an indexed attribute) with 50
///    clients on the server with the two indexes and on the one without, alternated.
extension ServerBenchmark {
    func runIndexes() async throws {
        let songTarget = options.indexSongs
        say("Server benchmark of fetch indexes (release build\(options.quick ? ", --quick" : "")), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
        let load = Self.loadAverage()
        let before = ProcessCPU.machineBusySeconds()
        usleep(1_000_000)
        say("machine before the run: \(fixed(ProcessCPU.machineBusySeconds() - before, 2)) cores busy with other processes (1 s sample), load average \(load)")
        say("each load run: closed loop, \(options.warmup.nanoseconds / 1_000_000) ms warm-up + \(options.duration.nanoseconds / 1_000_000) ms measured")
        say()

        JSONAtomicStore.register()
        let indexedModel = try writeIndexedModel()
        let url = directory.appendingPathComponent("store-indexes.json")
        let building = MonotonicClock.nanoseconds()
        // 89 of every 100 objects are Songs.
        let shape = try SampleStoreBuilder(model: try ObjectModel(contentsOf: modelURL)).build(objects: (songTarget * 100 + 88) / 89, at: url)
        let store = BenchmarkStore(url: url, shape: shape, size: fileSize(url))
        say("store: \(shape) written in \(fixed(Double(MonotonicClock.nanoseconds() - building) / 1e9, 2)) s, file \(megabytes(store.size))")
        binary = try locateDocserver()
        say("docserver: \(binary)")
        say()

        say("1. Opening the store without and with the two indexes:")
        try await withServer(on: store, model: modelURL) { _, _ in }
        try await withServer(on: store, model: indexedModel) { _, _ in }

        say("2. Reads on the server with the indexes (Songs: \(grouped(shape.songs))):")
        var getRates: [Double] = [], fetchRates: [Double] = []
        try await withServer(on: store, model: indexedModel) { session, load in
            let ids = try allIDs(of: "Song", session: session)
            let touching = MonotonicClock.nanoseconds()
            try session.touch(ids)
            say("(untimed: get of all \(grouped(ids.count)) Songs in \(fixed(Double(MonotonicClock.nanoseconds() - touching) / 1e9, 2)) s: the gets below are warm)")
            for round in 1...options.rounds {
                let suffix = options.rounds > 1 ? ", round \(round) of \(options.rounds)" : ""
                try await measure("index-get-\(round)", "get of 1 Song by ID (random among \(grouped(ids.count))), 50 connections\(suffix)",
                                  store: store, session: session, load: load, connections: 50, redis: nil, workload: GetWorkload.factory(ids: ids))
                try await measure("index-fetch-\(round)", "fetch of 1 Song by indexed `plays == %d` (random), 50 connections\(suffix)",
                                  store: store, session: session, load: load, connections: 50, redis: nil,
                                  workload: IndexedFetchWorkload.byPlays(songCount: shape.songs))
                if let get = reports["index-get-\(round)"], let fetch = reports["index-fetch-\(round)"] {
                    getRates.append(get.measurement.requestsPerSecond)
                    fetchRates.append(fetch.measurement.requestsPerSecond)
                }
            }
            try await measure("index-title", "fetch of 1 Song by indexed `title == %@` (random), 50 connections", store: store, session: session,
                              load: load, connections: 50, redis: nil, workload: IndexedFetchWorkload.byTitle(songCount: shape.songs))
            try await measure("index-top", "fetch of the 20 most played Songs (sort by indexed plays, descending, limit 20), 50 connections",
                              store: store, session: session, load: load, connections: 50, redis: nil, workload: IndexedFetchWorkload.mostPlayed())
            try await measure("index-fetch-1", "fetch of 1 Song by indexed `plays == %d` (random), 1 connection, sequential", store: store,
                              session: session, load: load, connections: 1, redis: nil, workload: IndexedFetchWorkload.byPlays(songCount: shape.songs))
        }
        let fetchToGet = median(fetchRates) / median(getRates)
        say("indexed fetch / get by ID, 50 connections, median of \(fetchRates.count) rounds each: \(grouped(Int(median(fetchRates)))) / \(grouped(Int(median(getRates))))"
            + " req/s = \(fixed(fetchToGet, 3)) (target >= 0.8)")
        say()

        say("3. PostgreSQL, the same lookup:")
        let postgres = try PostgresBaseline.start(in: directory)
        defer { postgres.stop() }
        let loading = MonotonicClock.nanoseconds()
        try postgres.loadSongs(shape.songs)
        say("\(postgres.version): table songs of \(grouped(shape.songs)) rows with B-tree indexes on plays and title, loaded in"
            + " \(fixed(Double(MonotonicClock.nanoseconds() - loading) / 1e9, 1)) s (port \(postgres.port))")
        let script = "\\set p random(0, \(shape.songs - 1))\nSELECT id, title, plays, rating, album FROM songs WHERE plays = :p;\n"
        let seconds = Int(options.duration.nanoseconds / 1_000_000_000) + 1
        var pgRates: [String: Double] = [:]
        for mode in ["simple", "prepared"] {
            let busy = ProcessCPU.machineBusySeconds(), began = MonotonicClock.nanoseconds()
            let tps = try postgres.pgbench(script: script, clients: 50, seconds: seconds, mode: mode)
            pgRates[mode] = tps
            say("pgbench -c 50 -j 2 -T \(seconds) -M \(mode), `SELECT … FROM songs WHERE plays = :p` (random): \(grouped(Int(tps))) lookups/s;"
                + " the machine's 2 cores busy \(fixed((ProcessCPU.machineBusySeconds() - busy) / (Double(MonotonicClock.nanoseconds() - began) / 1e9), 2)) cores (PostgreSQL, pgbench and other processes)")
        }
        let simple = pgRates["simple"] ?? .nan, prepared = pgRates["prepared"] ?? .nan
        say("docserver indexed fetch (median, 50 connections) / PostgreSQL: \(fixed(median(fetchRates) / simple, 3)) x pgbench simple,"
            + " \(fixed(median(fetchRates) / prepared, 3)) x pgbench prepared (goal >= 1.0)")
        postgres.stop()
        say()

        say("4. Durable saves of an indexed attribute, 50 clients, without and with the two indexes:")
        var plain: [Double] = [], indexed: [Double] = []
        for round in 1...options.rounds {
            for (model, name) in [(modelURL, "none"), (indexedModel, "indexes")] {
                try await withServer(on: store, model: model) { session, load in
                    let songs = try session.ids(of: "Song", limit: 5_000)
                    let owned = (0..<50).map { songs[($0 * 97) % songs.count] }
                    let versions = try session.versions(of: owned)
                    let key = "index-save-\(name)-\(round)"
                    try await measure(key, "durable save (update of one Song's plays; each client its own Song), 50 connections, \(name == "none" ? "no index" : "2 indexes"), round \(round)",
                                      store: store, session: session, load: load, connections: 50, redis: nil,
                                      workload: UpdateWorkload.factory(songs: owned, versions: versions))
                    if let rate = reports[key]?.measurement.requestsPerSecond { name == "none" ? plain.append(rate) : indexed.append(rate) }
                }
            }
        }
        say("saves without / with the two indexes, medians: \(grouped(Int(median(plain)))) / \(grouped(Int(median(indexed)))) saves/s:"
            + " cost with indexes \(fixed(median(plain) / median(indexed), 3)) x (target <= 1.2)")
        say()
        say("Summary (\(grouped(shape.songs)) Songs): indexed fetch / get by ID \(fixed(fetchToGet, 3)) (>= 0.8);"
            + " docserver / PostgreSQL \(fixed(median(fetchRates) / simple, 3)) (simple), \(fixed(median(fetchRates) / prepared, 3)) (prepared);"
            + " save cost with 2 indexes \(fixed(median(plain) / median(indexed), 3)) x (<= 1.2)")
        let failed = reports.filter { $0.key.hasPrefix("index-") && $0.value.hasErrors }.map(\.key).sorted()
        if !failed.isEmpty { say("figures with errors: \(failed.joined(separator: ", "))") }
    }

    /// The sample model with two fetch indexes on Song (`byPlays`, `byTitle`), written beside the stores.
    func writeIndexedModel() throws -> URL {
        let data = try Data(contentsOf: modelURL)
        guard var model = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              var entities = model["entities"] as? [[String: Any]],
              let song = entities.firstIndex(where: { $0["name"] as? String == "Song" }) else {
            throw BenchmarkError("the sample model has no Song entity")
        }
        entities[song]["fetchIndexes"] = [["name": "byPlays", "elements": [["property": "plays"]]],
                                          ["name": "byTitle", "elements": [["property": "title"]]]]
        model["entities"] = entities
        let url = directory.appendingPathComponent("sample-indexed.model.json")
        try JSONSerialization.data(withJSONObject: model).write(to: url)
        return url
    }

    /// Every ID of `entity`, 100,000 per request (one answer of all would pass the answer limit).
    private func allIDs(of entity: String, session: ServerSession) throws -> [String] {
        var ids: [String] = []
        while true {
            let result = try session.client.call("fetch", params: #"{"entity":"\#(entity)","resultType":"ids","limit":100000,"offset":\#(ids.count)}"#)
            guard let page = (result as? [String: Any])?["ids"] as? [String] else { throw BenchmarkError("fetch of \(entity) IDs: no `ids` array") }
            ids += page
            if page.count < 100_000 { return ids }
        }
    }
}
