import BenchmarkSupport
import Foundation

extension ServerBenchmark {
    /// `get` with 1 and 50 connections, `fetch` of 100 Songs with 1 and 50, on `store`.
    func measureReads(on store: BenchmarkStore, redis: RedisServers) async throws {
        try await withServer(on: store) { session, load in
            var ids: [String] = []
            for entity in ["Artist", "Album", "Song", "Tag"] { ids += try session.ids(of: entity) }
            guard ids.count == store.shape.total else {
                throw BenchmarkError("the server lists \(ids.count) objects, the store holds \(store.shape.total)")
            }
            let songCount = try session.ids(of: "Song").count
            let get = "get of 1 object by ID (random among all \(grouped(ids.count)))"
            // Cold: a fresh server, most objects sent for the first time.
            let cold = try redisGet(redis, clients: 50)
            try await measure("get-50-cold", "\(get), \(Self.connections(50)), COLD (fresh server: objects sent for the first time)",
                              store: store, session: session, load: load, connections: 50,
                              redis: ("Redis GET, 50 clients", cold), workload: GetWorkload.factory(ids: ids))
            let touchStart = MonotonicClock.nanoseconds()
            try session.touch(ids)
            say("(untimed: get of all \(grouped(ids.count)) objects, 1,000 per request, in \(fixed(Double(MonotonicClock.nanoseconds() - touchStart) / 1e9, 2)) s;"
                + " the figures below are WARM: every object has been sent once)")
            let get1 = try redisGet(redis, clients: 1)
            try await measure("get-1", "\(get), \(Self.connections(1)), warm", store: store, session: session, load: load, connections: 1,
                              redis: ("Redis GET, 1 client", get1), workload: GetWorkload.factory(ids: ids))
            get50 = try await compareGet50(rounds: options.rounds, what: "\(get), \(Self.connections(50)), warm", store: store,
                                           session: session, load: load, redis: redis, workload: GetWorkload.factory(ids: ids))
            let after = try redisGet(redis, clients: 50)
            for (connections, yardstick) in [(1, ("Redis GET, 1 client", get1)), (50, ("Redis GET, 50 clients", after))] {
                try await measure("fetch-\(connections)",
                                  "fetch of 100 Songs by predicate `plays >= %d AND plays < %d` (of \(grouped(songCount)) Songs), \(Self.connections(connections))",
                                  store: store, session: session, load: load, connections: connections,
                                  redis: yardstick, workload: FetchWorkload.factory(songCount: songCount, size: 100))
            }
        }
    }

    /// The warm `get` with 50 connections in rounds against Redis only (`--get`), on `store`.
    func measureGets(on store: BenchmarkStore, redis: RedisServers) async throws {
        try await withServer(on: store) { session, load in
            var ids: [String] = []
            for entity in ["Artist", "Album", "Song", "Tag"] { ids += try session.ids(of: entity) }
            try session.touch(ids)
            let workload = GetWorkload.factory(ids: ids)
            get50 = try await compareGet50(rounds: options.rounds, what: "get of 1 object by ID (random among all \(grouped(ids.count))), 50 connections, warm",
                                           store: store, session: session, load: load, redis: redis, workload: workload)
            if let floor = options.nioFloor, let song = try session.ids(of: "Song", limit: 1).first {
                // A real answer of the docserver (one Song) for the floor to give every time.
                let request = GetWorkload.requests(ids: [song]).first.map { Array($0.readableBytesView) } ?? []
                try await measureNIOFloor(binary: floor, answer: try session.client.exchange(request), workload: workload, redis: redis)
            }
        }
    }

    /// Durable saves with 1 client and with 50 on `store`, each client updating its own Song.
    func measureSaves(on store: BenchmarkStore, redis: RedisServers) async throws {
        try await withServer(on: store) { session, load in
            // Not all: the IDs of 890,000 Songs pass the server's answer limit.
            let songs = try session.ids(of: "Song", limit: 100_000)
            let stride = max(songs.count / 50, 1)
            let owned = (0..<50).map { songs[($0 * stride) % songs.count] }
            for clients in [1, 50] {
                let versions = try session.versions(of: Array(owned.prefix(clients)))
                let yardstick = clients == 50 ? ("Redis durable SET, 50 clients", try redisDurableSet(redis)) : nil
                try await measure("save-\(store.shape.total)-\(clients)",
                                  "durable save (update of one Song's plays with its version; each client its own Song), \(Self.connections(clients))",
                                  store: store, session: session, load: load, connections: clients,
                                  redis: yardstick,
                                  workload: UpdateWorkload.factory(songs: owned, versions: versions))
            }
            if let floor = options.nioFloor {
                try await measureSaveFloor(binary: floor, session: session, load: load, owned: owned, store: store, redis: redis)
            }
        }
    }

    /// Starts docserver on `store`, runs `body`, stops it and says how it ended.
    func withServer(on store: BenchmarkStore, model: URL? = nil, _ body: (ServerSession, LoadGenerator) async throws -> Void) async throws {
        let start = MonotonicClock.nanoseconds()
        let server = try DocServer(binary: binary, model: model ?? modelURL, store: store.url,
                                   log: directory.appendingPathComponent("docserver-\(store.shape.total)-\(start).log"))
        let ready = Double(MonotonicClock.nanoseconds() - start) / 1e9
        say("docserver on the \(store.label): listening on \(server.host):\(server.port) after \(fixed(ready, 2)) s,"
            + " resident \(megabytes(ProcessCPU.residentBytes(pid: server.processIdentifier)))")
        // The server's own account of opening: loading the store, then building its first read state.
        if let opened = server.logTail(50).split(separator: "\n").first(where: { $0.contains("store opened") }) {
            let fields = ["loadSeconds", "stateSeconds"].compactMap { key -> String? in
                guard let range = opened.range(of: "\(key)=") else { return nil }
                return "\(key) \(opened[range.upperBound...].prefix { $0 != " " })"
            }
            if !fields.isEmpty { say("    store opened: \(fields.joined(separator: ", ")) s") }
        }
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
    func measure(_ key: String, _ what: String, store: BenchmarkStore, session: ServerSession, load: LoadGenerator,
                         connections: Int, redis: (String, RedisBaseline.Figure)?, sameClientRedis: RedisBaseline.Figure? = nil,
                         workload: @escaping WorkloadFactory) async throws {
        let (measurement, cpu) = try await run(session: session, load: load, connections: connections, workload: workload)
        let report = FigureReport(what: what, data: store.label, measurement: measurement, cpu: cpu, redis: redis,
                                  sameClientRedis: sameClientRedis, showsDistribution: key.hasPrefix("get-"),
                                  showsCPUPerAnswer: (key.hasPrefix("get-") || key.hasPrefix("save-")) && !key.hasSuffix("-saving"))
        reports[key] = report
        for line in report.lines { say(line) }
    }

    /// Runs `workload` on `connections` connections (one: sequential, blocking write + read on
    /// one thread, as an event loop only adds epoll_wait calls); its figure and the CPU shares meanwhile.
    func run(session: ServerSession, load: LoadGenerator, connections: Int,
             workload: @escaping WorkloadFactory) async throws -> (Measurement, CPUShare) {
        let start = CPUShare.Start(serverPID: session.server.processIdentifier)
        let measurement: Measurement
        if connections == 1 {
            measurement = try await BlockingLoad(host: session.server.host, port: session.server.port,
                                                 warmup: options.warmup, duration: options.duration).run(workload: workload)
        } else {
            measurement = try await load.run(connections: connections, workload: workload)
        }
        return (measurement, start.share(endedThreadPreemptions: measurement.endedThreadPreemptions))
    }

    private static func connections(_ count: Int) -> String { count == 1 ? "1 connection, sequential" : "\(count) connections" }
}
