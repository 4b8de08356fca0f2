import BenchmarkSupport
import Foundation
import JSONAtomicStore
import NIOCore

/// `ServerBenchmarks --postgres-cache`: a server over PostgreSQL that keeps a bounded cache
/// (`--cache-bytes 64 MiB`) instead of the whole graph, beside pgbench on the same cluster in
/// the same run (issue "Data larger than one server's memory"):
///
/// 1. A private PostgreSQL 15 cluster, a JSON store of the sample model with an index on Song
///    `title` (`--cache-songs`, default 2,000,000 Songs) copied into a database `graph` with
///    `docserver copy`.
/// 2. Time to listen: the server started on the database, from spawn to its `listening` line.
/// 3. `get` of one Song by ID, 50 connections: hot (90 % of requests on 10 % of the Songs) and
///    uniform over all of them; pgbench with 50 clients on the same row lookups (prepared), the
///    same shapes, in three rounds of the two back to back (medians and their ratio). Server CPU
///    per answer.
/// 4. `fetch` of one Song by `title == %@` (answered in SQL), 50 connections; pgbench with the
///    same `SELECT` by title.
/// 5. The server's resident memory after 1,000,000 random `get`s (more are run when the
///    measured runs made fewer).
/// 6. Every Song in one `fetch` with `stream: true`, beside psql's `COPY` of the same statement
///    (ServerBenchmark+Stream.swift).
extension ServerBenchmark {
    func runPostgresCache() async throws {
        JSONAtomicStore.register()
        let songTarget = options.cacheSongs
        let cacheBytes = 64 << 20
        say("docserver over PostgreSQL with a bounded cache (release build\(options.quick ? ", --quick" : "")), "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
        let busy = ProcessCPU.machineBusySeconds()
        usleep(1_000_000)
        say("machine before the run: \(fixed(ProcessCPU.machineBusySeconds() - busy, 2)) cores busy with other processes (1 s sample), "
            + "load average \(Self.loadAverage())")
        binary = try locateDocserver()
        let cluster = try PostgresBaseline.start(in: directory)
        defer { cluster.stop() }
        say("PostgreSQL: \(cluster.version), port \(cluster.port)")
        try cluster.sql("CREATE DATABASE graph")
        let database = "postgresql://bench@127.0.0.1:\(cluster.port)/graph"
        let model = try writeIndexedModel()

        // 1. The data: a JSON store of the sample model, copied into the database.
        let objects = songTarget * 100 / 89 + 1
        let building = MonotonicClock.nanoseconds()
        let store = try sampleStore(objects: objects)
        say("built in \(fixed(Double(MonotonicClock.nanoseconds() - building) / 1e9, 1)) s")
        let copying = MonotonicClock.nanoseconds()
        let copy = try runProgram(binary, ["copy", "--from", store.url.path, "--to", database, "--model", model.path])
        guard copy.status == 0 else { throw BenchmarkError("docserver copy failed: \(copy.output.suffix(800))") }
        say("copied into PostgreSQL with `docserver copy` in \(fixed(Double(MonotonicClock.nanoseconds() - copying) / 1e9, 1)) s")
        // In the database the data is in (this vacuumed and analyzed the empty `postgres` until
        // 29 November 2026): without statistics PostgreSQL plans the statements blind until
        // autovacuum analyzes the tables, a minute or more later, in the middle of a measured
        // phase. In three runs of six the fetch phase then answered 7-10 fetches a second, with
        // every thread of the server idle and 8 backends running the server's statement, and
        // pgbench running the same statement got 7 tps.
        try cluster.sql("VACUUM ANALYZE", database: "graph")
        // The load's pages written out now, not by a timed checkpoint during a measured phase.
        try cluster.sql("CHECKPOINT")
        let references = try cluster.query("SELECT \"_id\" FROM \"Song\" ORDER BY \"_id\"", database: "graph").compactMap { Int64($0) }
        guard let lowest = references.first, let highest = references.last, highest - lowest + 1 == Int64(references.count) else {
            throw BenchmarkError("the Songs' references are not one run of numbers (\(references.count) Songs)")
        }
        let songs = references.count
        let databaseBytes = try cluster.query("SELECT pg_database_size('graph')", database: "graph").first.flatMap(Int.init) ?? 0
        say("\(grouped(songs)) Songs (references \(lowest)...\(highest)); database \(megabytes(databaseBytes))")
        say()

        // 2. Time to listen.
        let starting = MonotonicClock.nanoseconds()
        let server = try DocServer(binary: binary, model: model, store: directory.appendingPathComponent("unused.json"),
                                   log: directory.appendingPathComponent("postgres-cache.log"),
                                   arguments: ["--store", database, "--cache-bytes", "\(cacheBytes)", "--log-level", "warning"])
        let listenSeconds = Double(MonotonicClock.nanoseconds() - starting) / 1e9
        defer { _ = server.stop() }
        say("1. time to listen with --cache-bytes \(megabytes(cacheBytes)): \(fixed(listenSeconds, 2)) s (target <= 3 s); "
            + "resident memory then \(megabytes(Self.residentBytes(pid: server.processIdentifier)))")
        let session = try ServerSession(server: server)
        let hello = try session.client.call("hello", params: "{}")
        guard let uuid = (hello as? [String: Any])?["storeUUID"] as? String else { throw BenchmarkError("hello gave no storeUUID") }
        let songPrefix = "graph://\(uuid)/Song/"
        func songID(_ reference: Int64) -> String { songPrefix + String(reference) }
        let seconds = Int((Double(options.duration.nanoseconds) / 1e9).rounded(.up))
        var gets = 0

        // 3. get: hot set and uniform, beside pgbench.
        let hotCount = max(songs / 10, 1)
        // Each request's Song drawn when it is sent, as pgbench's script draws each transaction's.
        let hotSet = lowest...(lowest + Int64(hotCount) - 1)
        let hotGets = RandomGetWorkload.factory(idPrefix: songPrefix, all: lowest...highest, hot: hotSet, hotShare: 0.9)
        let uniformGets = RandomGetWorkload.factory(idPrefix: songPrefix, all: lowest...highest)
        let select = "SELECT \"_id\", \"_entity\", \"_version\", \"title\", \"plays\", \"rating\", \"uid\", \"album\" FROM \"Song\" WHERE \"_id\" = :id;\n"
        let hotScript = "\\set r random(1, 100)\n\\if :r <= 90\n\\set id random(\(hotSet.lowerBound), \(hotSet.upperBound))\n\\else\n"
            + "\\set id random(\(lowest), \(highest))\n\\endif\n" + select
        let uniformScript = "\\set id random(\(lowest), \(highest))\n" + select
        // The hot set is read before it is measured, as a server that has run for a while holds it:
        // every hot Song once, 64 to a `get` in a random order (single gets at the cold cache's rate
        // would read a few thousand of them in the time), then a run of the measured shape.
        let filling = MonotonicClock.nanoseconds()
        for chunk in (0..<Int64(hotCount)).shuffled().chunked(64) {
            let ids = chunk.map { "\"\(songID(lowest + $0))\"" }.joined(separator: ",")
            try session.client.callDiscardingResult("get", params: #"{"ids":["# + ids + "]}")
        }
        let filled = try CacheFigures(session)
        say("2. before the gets, the hot set read once, 64 Songs a get: \(fixed(Double(MonotonicClock.nanoseconds() - filling) / 1e9, 1)) s; \(filled.line)")
        let warming = try await postgresLoad(servers: [server], connections: 50, workload: hotGets)
        let window = Double(options.duration.nanoseconds + options.warmup.nanoseconds) / 1e9
        gets += Int(warming.rate * window)
        say("2. get of 1 Song by ID, 50 connections, \(GetRounds.count) rounds of the docserver then pgbench (same shape, prepared), back to back:")
        let beforeHot = try CacheFigures(session)
        let hot = try await getRounds(server, workload: hotGets, script: hotScript, cluster: cluster, seconds: seconds,
                                      shape: "hot (90 % on \(grouped(hotCount)) Songs)")
        let afterHot = try CacheFigures(session)
        say("    cache: \(afterHot.line) after the hot runs; \(afterHot.churn(since: beforeHot, gets: hot.gets(window: window)))")
        say("    hot, medians: \(hot.summary) (target >= 1.0)")
        let uniform = try await getRounds(server, workload: uniformGets, script: uniformScript, cluster: cluster, seconds: seconds,
                                          shape: "uniform over \(grouped(songs))")
        let afterUniform = try CacheFigures(session)
        say("    cache: \(afterUniform.churn(since: afterHot, gets: uniform.gets(window: window)))")
        say("    uniform, medians: \(uniform.summary) (target >= 0.5)")
        gets += Int(hot.gets(window: window) + uniform.gets(window: window))
        recordFigure("`get` through a 64 MiB cache over PostgreSQL, 50 connections", data: "\(grouped(songs)) Songs; hot 90 % on 10 % / uniform",
                     result: "\(grouped(Int(hot.rate))) / \(grouped(Int(uniform.rate))) req/s = \(fixed(hot.ratio, 2)) x / "
                        + "\(fixed(uniform.ratio, 2)) x pgbench (\(grouped(Int(hot.pgbench))) / \(grouped(Int(uniform.pgbench))) tps); "
                        + "server CPU \(fixed(hot.cpuPerGet, 1)) / \(fixed(uniform.cpuPerGet, 1)) µs per get; medians of \(GetRounds.count) rounds")

        // 4. Indexed fetch in SQL.
        let fetch = try await postgresLoad(servers: [server], connections: 50, workload: IndexedFetchWorkload.byTitle(songCount: songs))
        // The statement the server sends, as its `explain` shows it (the Song's tags and the last
        // commit read with it), its one parameter the title.
        let titleScript = "\\set n random(0, \(songs - 1))\n" + (try serverStatement(session, title: "'Song ' || :n")) + ";\n"
        let pgFetch = try cluster.pgbench(script: titleScript, clients: 50, seconds: seconds, mode: "prepared", database: "graph")
        say("3. fetch of 1 Song by title == %@ (SQL), 50 connections: \(fetch.line)")
        say("    pgbench, the same SELECT by title, prepared: \(grouped(Int(pgFetch))) tps; ratio \(fixed(fetch.rate / pgFetch, 2)) (target >= 0.5)")
        recordFigure("indexed `fetch` in SQL through a bounded cache, 50 connections", data: "\(grouped(songs)) Songs, `title == %@`",
                     result: "\(grouped(Int(fetch.rate))) req/s = \(fixed(fetch.rate / pgFetch, 2)) x pgbench (\(grouped(Int(pgFetch))) tps); "
                        + "server CPU \(fixed(fetch.cpuPerAnswer, 1)) µs per fetch")

        // 5. Memory after 1,000,000 random gets.
        if gets < 1_000_000, uniform.rate > 0 {
            let more = TimeAmount.milliseconds(Int64(min(300, Double(1_000_000 - gets) / uniform.rate + 1) * 1000))
            let generator = LoadGenerator(group: group, host: server.host, port: server.port, warmup: .milliseconds(0), duration: more)
                        let measured = try await generator.run(connections: 50) { uniformGets($0) }
            gets += measured.answers
        }
        let resident = Self.residentBytes(pid: server.processIdentifier)
        say("4. resident memory after about \(grouped(gets)) random gets: \(megabytes(resident)) (target <= 256 MB)")
        recordFigure("server over PostgreSQL with `--cache-bytes 64 MiB`", data: "\(grouped(songs)) Songs, database \(megabytes(databaseBytes))",
                     result: "listening in \(fixed(listenSeconds, 2)) s; resident \(megabytes(resident)) after \(grouped(gets)) random gets")

        // 6. Every Song, streamed.
        try streamEverySong(server, session: session, cluster: cluster, songs: songs)
    }

    /// A process's resident memory (`VmRSS` of `/proc/PID/status`), in bytes.
    static func residentBytes(pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }

    /// The statement the server sends for a fetch of a Song by title, from its `explain`, with
    /// `title` (SQL) in place of its parameter.
    private func serverStatement(_ session: ServerSession, title: String) throws -> String {
        let answer = try session.client.call("fetch", params: #"{"entity":"Song","predicate":"title == %@","arguments":["Song 0"],"explain":true}"#)
        guard let plan = ((answer as? [String: Any])?["plan"] as? [String: Any])?["sql"] as? String,
              let select = plan.range(of: "SELECT "), plan.contains("$1"), !plan.contains("$2") else {
            throw BenchmarkError("the server's explain of a fetch by title gave no statement with one parameter: \(answer)")
        }
        return plan[select.lowerBound...].replacingOccurrences(of: "$1", with: "(\(title))")
    }
}

/// What a server's `stats` says of its bounded cache: objects held, their estimated bytes, and
/// the objects read from the database after misses so far.
extension ServerBenchmark {
    /// ``GetRounds/count`` rounds of `get`s (`workload`) through `server` then pgbench running
    /// `script` on the same cluster, back to back: the machine's other load drifts within a
    /// minute, and one run of each, a minute apart, judged the ratio by that drift (pgbench's
    /// rate on the same statements moved between 17,000 and 22,000 tps from run to run).
    fileprivate func getRounds(_ server: DocServer, workload: @escaping WorkloadFactory, script: String, cluster: PostgresBaseline, seconds: Int,
                               shape: String) async throws -> GetRounds {
        var rounds = GetRounds()
        for round in 1...GetRounds.count {
            let load = try await postgresLoad(servers: [server], connections: 50, workload: workload)
            let tps = try cluster.pgbench(script: script, clients: 50, seconds: seconds, mode: "prepared", database: "graph")
            rounds.docserver.append(load)
            rounds.pgbenchRates.append(tps)
            say("    \(shape), round \(round): \(load.line); pgbench \(grouped(Int(tps))) tps; ratio \(fixed(load.rate / tps, 2))")
        }
        return rounds
    }
}

/// The rounds of one shape of `get`s (``ServerBenchmark/getRounds``) and their medians.
private struct GetRounds {
    static let count = 3
    var docserver: [PostgresLoadFigure] = []
    var pgbenchRates: [Double] = []

    var rate: Double { median(docserver.map(\.rate)) }
    var pgbench: Double { median(pgbenchRates) }
    var cpuPerGet: Double { median(docserver.map(\.cpuPerAnswer)) }
    /// The median rate over pgbench's median rate.
    var ratio: Double { pgbench > 0 ? rate / pgbench : 0 }

    /// About how many gets the rounds made, warm-up included (`window`: seconds a round runs).
    func gets(window: Double) -> Double { docserver.reduce(0) { $0 + $1.rate * window } }

    var summary: String {
        "\(grouped(Int(rate))) req/s, \(fixed(cpuPerGet, 1)) µs of server CPU per get; pgbench \(grouped(Int(pgbench))) tps; ratio \(fixed(ratio, 2))"
    }
}

private struct CacheFigures {
    let objects: Int
    let bytes: Int
    let misses: Int
    /// Objects let go to make room (each for one kept after a miss, once the cache is full).
    let evictions: Int
    /// Objects read after a miss that a full cache did not keep (``AdmissionFilter``).
    let declined: Int

    init(_ session: ServerSession) throws {
        let stats = try session.client.call("stats", params: "{}") as? [String: Any]
        let cache = stats?["cache"] as? [String: Any]
        let store = stats?["store"] as? [String: Any]
        objects = store?["objects"] as? Int ?? 0
        bytes = cache?["objectBytes"] as? Int ?? 0
        misses = cache?["misses"] as? Int ?? 0
        evictions = cache?["evictions"] as? Int ?? 0
        declined = cache?["declined"] as? Int ?? 0
    }

    var line: String { "\(grouped(objects)) objects held, \(megabytes(bytes)) estimated" }

    /// What the cache did with its misses between `earlier` and these figures, per get.
    func churn(since earlier: CacheFigures, gets: Double) -> String {
        guard gets > 0 else { return "no gets" }
        return "\(fixed(Double(misses - earlier.misses) / gets, 3)) objects read from the database, "
            + "\(fixed(Double(evictions - earlier.evictions) / gets, 3)) let go for others, "
            + "\(fixed(Double(declined - earlier.declined) / gets, 3)) read and not kept, per get (about)"
    }
}

private extension Array {
    /// The elements in consecutive pieces of `size` (the last may be shorter).
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
