import Foundation

extension ServerBenchmark {
    /// `get` with 1 and 50 connections, `fetch` of 100 Songs with 1 and 50, on `store`.
    func measureReads(on store: BenchmarkStore, redis: RedisFigures) async throws {
        try await withServer(on: store) { session, load in
            var ids: [String] = []
            for entity in ["Artist", "Album", "Song", "Tag"] { ids += try session.ids(of: entity) }
            guard ids.count == store.shape.total else {
                throw BenchmarkError("the server lists \(ids.count) objects, the store holds \(store.shape.total)")
            }
            let songCount = try session.ids(of: "Song").count
            for connections in [1, 50] {
                try await measure("get-\(connections)",
                                  "get of 1 object by ID (random among all \(grouped(ids.count))), \(Self.connections(connections))",
                                  store: store, session: session, load: load, connections: connections,
                                  redis: Self.redisGet(connections, redis), workload: GetWorkload.factory(ids: ids))
            }
            for connections in [1, 50] {
                try await measure("fetch-\(connections)",
                                  "fetch of 100 Songs by predicate `plays >= %d AND plays < %d` (of \(grouped(songCount)) Songs), \(Self.connections(connections))",
                                  store: store, session: session, load: load, connections: connections,
                                  redis: Self.redisGet(connections, redis), workload: FetchWorkload.factory(songCount: songCount, size: 100))
            }
        }
    }

    /// Durable saves with 1 client and with 50 on `store`, each client updating its own Song.
    func measureSaves(on store: BenchmarkStore, redis: RedisFigures) async throws {
        try await withServer(on: store) { session, load in
            let songs = try session.ids(of: "Song")
            let stride = max(songs.count / 50, 1)
            let owned = (0..<50).map { songs[($0 * stride) % songs.count] }
            for clients in [1, 50] {
                let versions = try session.versions(of: Array(owned.prefix(clients)))
                try await measure("save-\(store.shape.total)-\(clients)",
                                  "durable save (update of one Song's plays with its version; each client its own Song), \(Self.connections(clients))",
                                  store: store, session: session, load: load, connections: clients,
                                  redis: clients == 50 ? ("Redis durable SET (appendfsync always), 50 clients", redis.durableSet) : nil,
                                  workload: UpdateWorkload.factory(songs: owned, versions: versions))
            }
        }
    }

    /// Starts docserver on `store`, runs `body`, stops it and says how it ended.
    private func withServer(on store: BenchmarkStore, _ body: (ServerSession, LoadGenerator) async throws -> Void) async throws {
        let start = MonotonicClock.nanoseconds()
        let server = try DocServer(binary: binary, model: modelURL, store: store.url,
                                   log: directory.appendingPathComponent("docserver-\(store.shape.total)-\(start).log"))
        let ready = Double(MonotonicClock.nanoseconds() - start) / 1e9
        say("docserver on the \(store.label): listening on \(server.host):\(server.port) after \(fixed(ready, 2)) s,"
            + " resident \(megabytes(ProcessCPU.residentBytes(pid: server.processIdentifier)))")
        do {
            let session = try ServerSession(server: server)
            let load = LoadGenerator(group: group, host: server.host, port: server.port, warmup: options.warmup, duration: options.duration)
            try await body(session, load)
        } catch {
            say("docserver: \(server.stop()); its log ends with:\n\(server.logTail())")
            throw error
        }
        let resident = ProcessCPU.residentBytes(pid: server.processIdentifier)
        let stopping = MonotonicClock.nanoseconds()
        let ended = server.stop()
        say("docserver stopped by SIGTERM in \(fixed(Double(MonotonicClock.nanoseconds() - stopping) / 1e9, 2)) s: \(ended)"
            + "\(ended == "exit status 0" ? "" : " (expected exit status 0)"); resident before: \(megabytes(resident))")
        say()
    }

    /// Runs one load, prints its figure and keeps it under `key`.
    private func measure(_ key: String, _ what: String, store: BenchmarkStore, session: ServerSession, load: LoadGenerator,
                         connections: Int, redis: (String, RedisBaseline.Figure)?, workload: @escaping WorkloadFactory) async throws {
        let start = CPUShare.Start(serverPID: session.server.processIdentifier)
        let measurement = try await load.run(connections: connections, workload: workload)
        let report = FigureReport(what: what, data: store.label, measurement: measurement, cpu: start.share(), redis: redis)
        reports[key] = report
        for line in report.lines { say(line) }
    }

    private static func connections(_ count: Int) -> String { count == 1 ? "1 connection, sequential" : "\(count) connections" }

    private static func redisGet(_ connections: Int, _ redis: RedisFigures) -> (String, RedisBaseline.Figure) {
        connections == 1 ? ("Redis GET, 1 client", redis.get1) : ("Redis GET, \(connections) clients", redis.get50)
    }
}
