import BenchmarkSupport
import Foundation

/// `ServerBenchmarks --postgres`: docserver on PostgreSQL through the same SwiftNIO load
/// generator as every other server figure, beside pgbench on the same cluster in the same run:
///
/// 1. A private PostgreSQL 15 cluster (``PostgresBaseline``), a database `graph`, a docserver on
///    it with the sample model, 20,000 Songs inserted through it in saves of 5,000.
/// 2. `get` of one random Song by ID, 50 connections, through 1 server, then through 2 servers
///    on the database at once (25 connections each, the same event-loop thread driving both);
///    pgbench with 50 clients reading one random Song row by primary key, prepared (`-S -M
///    prepared`'s shape on the same rows). Servers' CPU per answer.
/// 3. Durable saves (each connection updates its own Song's `plays` with its version), 50
///    connections through 1 server, then through 2 (25 each); `pgbench -N -M prepared` with 50
///    clients on pgbench's own tables in a second database. Servers' CPU per save.
extension ServerBenchmark {
    func runPostgres() async throws {
        say("docserver on PostgreSQL (release build\(options.quick ? ", --quick" : "")), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
        let load = Self.loadAverage()
        let busy = ProcessCPU.machineBusySeconds()
        usleep(1_000_000)
        say("machine before the run: \(fixed(ProcessCPU.machineBusySeconds() - busy, 2)) cores busy with other processes (1 s sample), load average \(load)")
        say("each load run: closed loop, 50 connections on one SwiftNIO event-loop thread, \(options.warmup.nanoseconds / 1_000_000) ms warm-up"
            + " + \(options.duration.nanoseconds / 1_000_000) ms measured; pgbench -j 2 for the same seconds")
        binary = try locateDocserver()
        say("docserver: \(binary)")
        let cluster = try PostgresBaseline.start(in: directory)
        defer { cluster.stop() }
        say("PostgreSQL: \(cluster.version), port \(cluster.port)")
        try cluster.sql("CREATE DATABASE graph")
        try cluster.sql("CREATE DATABASE pgbench")
        try cluster.pgbenchInitialize(database: "pgbench")
        let database = "postgresql://bench@127.0.0.1:\(cluster.port)/graph"
        let songs = 20_000
        let seconds = Int((Double(options.duration.nanoseconds) / 1e9).rounded(.up))
        func server(_ name: String) throws -> DocServer {
            // `--store` again: the last one wins over DocServer's file.
            try DocServer(binary: binary, model: modelURL, store: directory.appendingPathComponent("unused.json"),
                          log: directory.appendingPathComponent("postgres-\(name).log"), arguments: ["--store", database, "--log-level", "warning"])
        }
        let first = try server("a")
        defer { _ = first.stop() }
        let session = try ServerSession(server: first)
        let seeding = MonotonicClock.nanoseconds()
        for start in stride(from: 0, to: songs, by: 5_000) {
            let inserts = (start..<min(start + 5_000, songs)).map {
                #"{"id":"s\#($0)","entity":"Song","values":{"title":"song \#($0)","plays":\#($0)}}"#
            }
            try session.client.callDiscardingResult("save", params: #"{"insert":["# + inserts.joined(separator: ",") + "]}")
        }
        say("\(grouped(songs)) Songs inserted through the server in saves of 5,000 in \(fixed(Double(MonotonicClock.nanoseconds() - seeding) / 1e9, 2)) s")
        let ids = try session.ids(of: "Song")
        let references = ids.compactMap { $0.split(separator: "/").last.flatMap { Int64($0) } }
        guard let lowest = references.min(), let highest = references.max() else { throw BenchmarkError("the Songs have no integer references") }
        let second = try server("b")
        defer { _ = second.stop() }
        let servers = [first, second]
        try ServerSession(server: second).touch(ids)
        try session.touch(ids)
        say()

        // Reads.
        let getOne = try await postgresLoad(servers: [first], connections: 50, workload: GetWorkload.factory(ids: ids))
        let getTwo = try await postgresLoad(servers: servers, connections: 50, workload: GetWorkload.factory(ids: ids))
        let selectScript = "\\set id random(\(lowest), \(highest))\nSELECT \"_id\", \"_entity\", \"_version\", \"title\", \"plays\" FROM \"Song\" WHERE \"_id\" = :id;\n"
        let pgbenchReads = try cluster.pgbench(script: selectScript, clients: 50, seconds: seconds, mode: "prepared", database: "graph")
        say("get of 1 Song by ID (random among \(grouped(songs))), 50 connections:")
        say("    1 server: \(getOne.line)")
        say("    2 servers: \(getTwo.line)")
        say("    pgbench, 50 clients, prepared, one random Song row by _id: \(grouped(Int(pgbenchReads))) tps")
        say("    1 server / pgbench \(fixed(getOne.rate / pgbenchReads, 2)) (target >= 1.0); 2 servers / 1 server \(fixed(getTwo.rate / getOne.rate, 2)) (target >= 1.5)")
        recordFigure("`get` on PostgreSQL, 50 connections", data: "\(grouped(songs)) Songs, 1 / 2 servers",
                     result: "\(grouped(Int(getOne.rate))) / \(grouped(Int(getTwo.rate))) req/s = \(fixed(getOne.rate / pgbenchReads, 2)) x / "
                        + "\(fixed(getTwo.rate / pgbenchReads, 2)) x pgbench by primary key (\(grouped(Int(pgbenchReads))) tps); "
                        + "server CPU \(fixed(getOne.cpuPerAnswer, 1)) / \(fixed(getTwo.cpuPerAnswer, 1)) µs per get")
        say()

        // Durable saves.
        let saved = Array(ids.prefix(50))
        let versions = try session.versions(of: saved)
        let saveOne = try await postgresLoad(servers: [first], connections: 50, workload: UpdateWorkload.factory(songs: saved, versions: versions))
        let saveTwo = try await postgresLoad(servers: servers, connections: 50,
                                             workload: UpdateWorkload.factory(songs: saved, versions: try session.versions(of: saved)))
        let pgbenchWrites = try cluster.pgbench(builtin: "-N", clients: 50, seconds: seconds, mode: "prepared", database: "pgbench")
        say("durable save (update of one Song's plays with its version; each connection its own Song), 50 connections:")
        say("    1 server: \(saveOne.line)")
        say("    2 servers: \(saveTwo.line)")
        say("    pgbench -N -M prepared, 50 clients: \(grouped(Int(pgbenchWrites))) tps")
        say("    1 server / pgbench \(fixed(saveOne.rate / pgbenchWrites, 2)) (target >= 0.7); 2 servers / pgbench \(fixed(saveTwo.rate / pgbenchWrites, 2)) (target >= 1.0)")
        recordFigure("durable saves on PostgreSQL, 50 connections", data: "\(grouped(songs)) Songs, 1 / 2 servers",
                     result: "\(grouped(Int(saveOne.rate))) / \(grouped(Int(saveTwo.rate))) req/s = \(fixed(saveOne.rate / pgbenchWrites, 2)) x / "
                        + "\(fixed(saveTwo.rate / pgbenchWrites, 2)) x `pgbench -N` (\(grouped(Int(pgbenchWrites))) tps); "
                        + "server CPU \(fixed(saveOne.cpuPerAnswer, 0)) / \(fixed(saveTwo.cpuPerAnswer, 0)) µs per save")
    }

    /// One load run spread over `servers` (connections split evenly, one event-loop thread
    /// driving them all): the answers per second of them together and the servers' CPU per answer.
    func postgresLoad(servers: [DocServer], connections: Int, workload: @escaping WorkloadFactory) async throws -> PostgresLoadFigure {
        let cpuBefore = servers.map { ProcessCPU.seconds(pid: $0.processIdentifier) }
        let machineBefore = ProcessCPU.machineBusySeconds(), ownBefore = ProcessCPU.seconds(pid: getpid())
        let began = MonotonicClock.nanoseconds()
        let share = connections / max(servers.count, 1)
        let measurements = try await withThrowingTaskGroup(of: Measurement.self) { tasks in
            for (index, server) in servers.enumerated() {
                let generator = LoadGenerator(group: group, host: server.host, port: server.port, warmup: options.warmup, duration: options.duration)
                let offset = index * share
                tasks.addTask { try await generator.run(connections: share) { workload(offset + $0) } }
            }
            var all: [Measurement] = []
            for try await measurement in tasks { all.append(measurement) }
            return all
        }
        let cpu = zip(servers, cpuBefore).reduce(0) { $0 + ProcessCPU.seconds(pid: $1.0.processIdentifier) - $1.1 }
        let wall = Double(MonotonicClock.nanoseconds() - began) / 1e9
        let machine = (ProcessCPU.machineBusySeconds() - machineBefore) / wall
        let generator = (ProcessCPU.seconds(pid: getpid()) - ownBefore) / wall
        let rate = measurements.reduce(0) { $0 + $1.requestsPerSecond }
        let errors = measurements.reduce(0) { $0 + $1.errors }
        let answered = measurements.reduce(0) { $0 + $1.answers - $1.errors }
        let latencies = measurements.flatMap(\.latencies).sorted()
        let p99 = latencies.isEmpty ? 0 : Double(latencies[min(latencies.count - 1, latencies.count * 99 / 100)]) / 1e6
        // The CPU counts the warm-up too: per answer over every answer of the run, window and warm-up alike.
        let warmupShare = Double(options.warmup.nanoseconds) / Double(options.duration.nanoseconds)
        let cpuPerAnswer = answered > 0 ? cpu / (Double(answered) * (1 + warmupShare)) * 1e6 : 0
        let firstError = measurements.compactMap(\.firstError).first
        return PostgresLoadFigure(rate: rate, p99: p99, errors: errors, cpuPerAnswer: cpuPerAnswer, firstError: firstError,
                                  cores: CoreShares(machine: machine, servers: cpu / wall, generator: generator))
    }
}

/// What ``ServerBenchmark/postgresLoad(servers:connections:workload:)`` measured.
struct PostgresLoadFigure {
    let rate: Double
    let p99: Double
    let errors: Int
    let cpuPerAnswer: Double
    let firstError: String?
    let cores: CoreShares

    var line: String {
        "\(grouped(Int(rate))) req/s, p99 \(fixed(p99, 2)) ms, server CPU per answer \(fixed(cpuPerAnswer, 1)) µs; \(cores.line)"
            + (errors > 0 ? "; WITH \(grouped(errors)) ERRORS, first: \(firstError ?? "?")" : "")
    }
}

/// Where a load run's CPU went, in cores (CPU seconds per second of the run, warm-up included):
/// on a machine whose cores are all busy, a second server can only take CPU from the first,
/// from PostgreSQL or from the load generator.
struct CoreShares {
    /// Every process of the machine.
    let machine: Double
    /// The docservers.
    let servers: Double
    /// This process (the load generator's event loop).
    let generator: Double

    var line: String {
        "cores busy \(fixed(machine, 2)) of \(ProcessInfo.processInfo.activeProcessorCount): docservers \(fixed(servers, 2)), "
            + "load generator \(fixed(generator, 2)), PostgreSQL and the rest \(fixed(max(0, machine - servers - generator), 2))"
    }
}
