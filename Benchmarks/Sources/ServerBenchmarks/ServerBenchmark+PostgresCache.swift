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
///    same shapes. Server CPU per answer.
/// 4. `fetch` of one Song by `title == %@` (answered in SQL), 50 connections; pgbench with the
///    same `SELECT` by title.
/// 5. The server's resident memory after 1,000,000 random `get`s (more are run when the
///    measured runs made fewer).
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
        try cluster.sql("VACUUM ANALYZE")
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
        func songID(_ reference: Int64) -> String { "graph://\(uuid)/Song/\(reference)" }
        let seconds = Int((Double(options.duration.nanoseconds) / 1e9).rounded(.up))
        var gets = 0

        // 3. get: hot set and uniform, beside pgbench.
        let hotCount = max(songs / 10, 1)
        let pool = 400_000
        let hotIDs = (0..<pool).map { _ in
            songID(Int.random(in: 0..<100) < 90 ? lowest + Int64.random(in: 0..<Int64(hotCount)) : Int64.random(in: lowest...highest))
        }
        let uniformIDs = (0..<pool).map { _ in songID(Int64.random(in: lowest...highest)) }
        let select = "SELECT \"_id\", \"_entity\", \"_version\", \"title\", \"plays\", \"rating\", \"uid\", \"album\" FROM \"Song\" WHERE \"_id\" = :id;\n"
        let hotScript = "\\set r random(1, 100)\n\\if :r <= 90\n\\set id random(\(lowest), \(lowest + Int64(hotCount) - 1))\n\\else\n"
            + "\\set id random(\(lowest), \(highest))\n\\endif\n" + select
        let uniformScript = "\\set id random(\(lowest), \(highest))\n" + select
        // The hot set is read once before it is measured: the cache fills as a running server's would.
        let warming = try await postgresLoad(servers: [server], connections: 50, workload: GetWorkload.factory(ids: hotIDs))
        let hot = try await postgresLoad(servers: [server], connections: 50, workload: GetWorkload.factory(ids: hotIDs))
        let pgHot = try cluster.pgbench(script: hotScript, clients: 50, seconds: seconds, mode: "prepared", database: "graph")
        let uniform = try await postgresLoad(servers: [server], connections: 50, workload: GetWorkload.factory(ids: uniformIDs))
        let pgUniform = try cluster.pgbench(script: uniformScript, clients: 50, seconds: seconds, mode: "prepared", database: "graph")
        let window = Double(options.duration.nanoseconds + options.warmup.nanoseconds) / 1e9
        gets += Int((warming.rate + hot.rate + uniform.rate) * window)
        say("2. get of 1 Song by ID, 50 connections:")
        say("    hot (90 % on \(grouped(hotCount)) Songs): \(hot.line)")
        say("    pgbench, same shape, prepared: \(grouped(Int(pgHot))) tps; ratio \(fixed(hot.rate / pgHot, 2)) (target >= 1.0)")
        say("    uniform over \(grouped(songs)): \(uniform.line)")
        say("    pgbench, same shape, prepared: \(grouped(Int(pgUniform))) tps; ratio \(fixed(uniform.rate / pgUniform, 2)) (target >= 0.5)")
        recordFigure("`get` through a 64 MiB cache over PostgreSQL, 50 connections", data: "\(grouped(songs)) Songs; hot 90 % on 10 % / uniform",
                     result: "\(grouped(Int(hot.rate))) / \(grouped(Int(uniform.rate))) req/s = \(fixed(hot.rate / pgHot, 2)) x / "
                        + "\(fixed(uniform.rate / pgUniform, 2)) x pgbench (\(grouped(Int(pgHot))) / \(grouped(Int(pgUniform))) tps); "
                        + "server CPU \(fixed(hot.cpuPerAnswer, 1)) / \(fixed(uniform.cpuPerAnswer, 1)) µs per get")

        // 4. Indexed fetch in SQL.
        let fetch = try await postgresLoad(servers: [server], connections: 50, workload: IndexedFetchWorkload.byTitle(songCount: songs))
        // The same condition the store sends (its index is on the title's normalized form).
        let titleScript = "\\set n random(0, \(songs - 1))\nSELECT \"_id\", \"_entity\", \"_version\", \"title\", \"plays\", \"rating\", \"uid\", \"album\" "
            + "FROM \"Song\" t WHERE (normalize(t.\"title\", NFC) COLLATE \"C\") = normalize('Song ' || :n, NFC);\n"
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
            let pool = GetWorkload.factory(ids: uniformIDs)
            let measured = try await generator.run(connections: 50) { pool($0) }
            gets += measured.answers
        }
        let resident = Self.residentBytes(pid: server.processIdentifier)
        say("4. resident memory after about \(grouped(gets)) random gets: \(megabytes(resident)) (target <= 256 MB)")
        recordFigure("server over PostgreSQL with `--cache-bytes 64 MiB`", data: "\(grouped(songs)) Songs, database \(megabytes(databaseBytes))",
                     result: "listening in \(fixed(listenSeconds, 2)) s; resident \(megabytes(resident)) after \(grouped(gets)) random gets")
    }

    /// A process's resident memory (`VmRSS` of `/proc/PID/status`), in bytes.
    static func residentBytes(pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }
}
