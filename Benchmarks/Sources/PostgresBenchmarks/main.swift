import BenchmarkSupport
import Foundation

// docserver on PostgreSQL, beside pgbench on the same cluster in the same run:
// durable saves/s with N clients through 1 and through 2 servers (with the servers' CPU per
// save) against `pgbench -N`; `get` and a fetch by title through a server against pgbench
// reading the same row by primary key (pgbench -S's read); read-your-writes across servers
// (save on A, then `get … after: seq` on B) with the wait of each read; a bulk insert in saves of
// 5,000 against the same rows inserted by one SQL statement; `docserver copy` of a JSON store.
//
//   swift run -c release --package-path Benchmarks PostgresBenchmarks [--seconds S] [--clients N] [--trials N] [--bulk N] [--copy N] [--docserver PATH]

ChildProcessReaper.installSignalHandlers()
let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let seconds = Double(option("--seconds") ?? "") ?? 5
let clientCount = Int(option("--clients") ?? "") ?? 50
let trials = Int(option("--trials") ?? "") ?? 2_000
let repository = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)

do {
    let binary = try DocServerBinary.locate(explicit: option("--docserver"), repository: repository,
                                            candidates: [".build/release/docserver", "Benchmarks/.build/release/docserver"],
                                            build: ["build", "-c", "release", "--package-path", "Benchmarks", "--product", "docserver"],
                                            built: "Benchmarks/.build/release/docserver")
    say("docserver: \(binary); \(ProcessInfo.processInfo.activeProcessorCount) cores shared by PostgreSQL, the servers and the clients")
    let cluster = try BenchCluster()
    defer { cluster.stop() }
    let database = try cluster.newDatabase("bench")
    let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pg-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let model = repository.appendingPathComponent("Sources/docserver/Resources/sample.model.json")
    func startServer(_ name: String) throws -> DocServer {
        // `--store` again: the last one wins over DocServer's file.
        try DocServer(binary: binary, model: model, store: directory.appendingPathComponent("unused.json"),
                      log: directory.appendingPathComponent("\(name).log"), arguments: ["--store", database, "--log-level", "warning"])
    }
    let first = try startServer("a")
    let seeding = try RPCClient(port: first.port)
    let inserts: [[String: Any]] = (0..<clientCount).map { ["id": "s\($0)", "entity": "Song", "values": ["title": "song \($0)", "plays": 0]] }
    let seeded = try seeding.result("save", ["insert": inserts])
    guard let idsByTemporary = seeded["ids"] as? [String: String] else { throw BenchmarkError("the seeding save gave no IDs") }
    let ids = (0..<clientCount).compactMap { idsByTemporary["s\($0)"] }

    // The database alone, through the same cluster: pgbench's simple-update transaction.
    _ = try cluster.run("createdb", ["-h", "127.0.0.1", "-p", String(cluster.port), "-U", "graph", "pgbench"])
    _ = try cluster.run("pgbench", ["-i", "-q", "-s", "1", "-h", "127.0.0.1", "-p", String(cluster.port), "-U", "graph", "pgbench"])
    func pgbenchTPS(_ arguments: [String], database: String) throws -> Double {
        let output = try cluster.run("pgbench", ["-n"] + arguments + ["-T", String(Int(seconds)), "-h", "127.0.0.1",
                                                                        "-p", String(cluster.port), "-U", "graph", database])
        return output.split(separator: "\n").first { $0.hasPrefix("tps = ") }
            .flatMap { Double($0.dropFirst(6).split(separator: " ").first ?? "") } ?? 0
    }
    let pgbenchWrites = try pgbenchTPS(["-N", "-M", "prepared", "-c", String(clientCount), "-j", "2"], database: "pgbench")

    func cpuSeconds(_ servers: [DocServer]) -> Double { servers.reduce(0) { $0 + ProcessCPU.seconds(pid: $1.processIdentifier) } }
    var cpuBefore = cpuSeconds([first])
    let oneServer = try SaveLoad.run(ports: [first.port], ids: ids, seconds: seconds)
    let oneCPU = (cpuSeconds([first]) - cpuBefore) / max(oneServer.rate * seconds, 1) * 1e6
    let second = try startServer("b")
    cpuBefore = cpuSeconds([first, second])
    let twoServers = try SaveLoad.run(ports: [first.port, second.port], ids: ids, seconds: seconds)
    let twoCPU = (cpuSeconds([first, second]) - cpuBefore) / max(twoServers.rate * seconds, 1) * 1e6
    say(String(format: "durable saves/s, %d clients (one object each, update with its version), %d objects: 1 server %.0f (%.0f µs server CPU per save), "
               + "2 servers %.0f (%.0f µs), pgbench -N %.0f tps: 1 server / pgbench %.2f, 2 servers / pgbench %.2f",
               clientCount, clientCount, oneServer.rate, oneCPU, twoServers.rate, twoCPU, pgbenchWrites,
               oneServer.rate / max(pgbenchWrites, 1), twoServers.rate / max(pgbenchWrites, 1)))
    say("  errors: 1 server \(oneServer.errors), 2 servers \(twoServers.errors)")
    recordFigure("durable saves on PostgreSQL, \(clientCount) clients", data: "1 / 2 servers, one cluster",
                 result: String(format: "%.0f/s / %.0f/s = %.2f x / %.2f x `pgbench -N` (%.0f tps); server CPU %.0f / %.0f µs per save",
                                oneServer.rate, twoServers.rate, oneServer.rate / max(pgbenchWrites, 1), twoServers.rate / max(pgbenchWrites, 1),
                                pgbenchWrites, oneCPU, twoCPU))

    // Bulk inserts: Songs in saves of 5,000 through one server, against the same rows inserted
    // by one INSERT … SELECT generate_series in psql (the database's own floor for them).
    let bulkObjects = Int(option("--bulk") ?? "") ?? 20_000, bulkSave = 5_000
    let bulkStart = Date()
    cpuBefore = cpuSeconds([first])
    for start in stride(from: 0, to: bulkObjects, by: bulkSave) {
        let songs: [[String: Any]] = (start..<min(start + bulkSave, bulkObjects)).map {
            ["id": "b\($0)", "entity": "Song", "values": ["title": "bulk \($0)", "plays": $0]]
        }
        _ = try seeding.result("save", ["insert": songs])
    }
    let bulkSeconds = Date().timeIntervalSince(bulkStart)
    let bulkCPU = (cpuSeconds([first]) - cpuBefore) / Double(max(bulkObjects, 1)) * 1e6
    let sqlStart = Date()
    _ = try cluster.run("psql", ["-q", "-h", "127.0.0.1", "-p", String(cluster.port), "-U", "graph", "-d", "bench", "-c",
                                 "INSERT INTO \"Song\" (\"_id\", \"_entity\", \"_version\", \"title\", \"plays\") "
                                 + "SELECT -g, 'Song', 1, 'sql ' || g, g FROM generate_series(1, \(bulkObjects)) g"])
    let sqlSeconds = Date().timeIntervalSince(sqlStart)
    say(String(format: "bulk insert of %d Songs in saves of %d through 1 server: %.2f s = %.0f objects/s (%.0f µs server CPU per object); "
               + "the same rows by one INSERT … SELECT in psql: %.2f s = %.0f objects/s; server / psql %.2f",
               bulkObjects, bulkSave, bulkSeconds, Double(bulkObjects) / bulkSeconds, bulkCPU, sqlSeconds,
               Double(bulkObjects) / sqlSeconds, sqlSeconds / bulkSeconds))
    recordFigure("bulk insert on PostgreSQL, saves of \(grouped(bulkSave))", data: "\(grouped(bulkObjects)) Songs",
                 result: String(format: "%.0f objects/s = %.2f x one `INSERT … SELECT` in psql", Double(bulkObjects) / bulkSeconds,
                                sqlSeconds / bulkSeconds))

    // docserver copy: a JSON store of `--copy` Songs (made through a JSON server in saves of
    // 5,000) into an empty database.
    let copyObjects = Int(option("--copy") ?? "") ?? 1_000_000
    if copyObjects > 0 {
        let jsonStore = directory.appendingPathComponent("copy-source.json")
        let jsonServer = try DocServer(binary: binary, model: model, store: jsonStore, log: directory.appendingPathComponent("json.log"),
                                       arguments: ["--log-level", "warning"])
        let loader = try RPCClient(port: jsonServer.port)
        for start in stride(from: 0, to: copyObjects, by: bulkSave) {
            let songs: [[String: Any]] = (start..<min(start + bulkSave, copyObjects)).map {
                ["id": "c\($0)", "entity": "Song", "values": ["title": "copied \($0)", "plays": $0]]
            }
            _ = try loader.result("save", ["insert": songs])
        }
        _ = jsonServer.stop()
        let copyDatabase = try cluster.newDatabase("copied")
        let copyStart = Date()
        let copied = try runProgram(binary, ["copy", "--model", model.path, "--from", jsonStore.path, "--to", copyDatabase], quiet: true)
        let copySeconds = Date().timeIntervalSince(copyStart)
        guard copied.status == 0 else { throw BenchmarkError("docserver copy failed: \(copied.output.suffix(500))") }
        let size = (try? FileManager.default.attributesOfItem(atPath: jsonStore.path)[.size] as? Int) ?? 0
        say(String(format: "docserver copy of a JSON store of %d Songs (%.0f MB) into PostgreSQL: %.1f s = %.0f objects/s",
                   copyObjects, Double(size) / 1e6, copySeconds, Double(copyObjects) / copySeconds))
        recordFigure("`docserver copy` of a JSON store into PostgreSQL", data: "\(grouped(copyObjects)) Songs",
                     result: String(format: "%.1f s = %.0f objects/s", copySeconds, Double(copyObjects) / copySeconds))
    }

    // Read-your-writes across servers: a save on A, then a get on B naming its seq.
    let writer = try RPCClient(port: first.port), reader = try RPCClient(port: second.port)
    guard let readTarget = ids.first else { throw BenchmarkError("no object to save") }
    var waits: [Double] = [], misses = 0
    var version = (try reader.result("get", ["ids": [readTarget]])["objects"] as? [[String: Any]])?.first?["version"] as? Int ?? 1
    for trial in 0..<trials {
        let saved = try writer.result("save", ["update": [["id": readTarget, "version": version, "values": ["plays": trial]]]])
        guard let seq = saved["seq"] as? Int else { throw BenchmarkError("a save answered no seq: \(saved)") }
        let started = Date()
        let got = try reader.result("get", ["ids": [readTarget], "after": seq])
        waits.append(Date().timeIntervalSince(started) * 1000)
        let object = (got["objects"] as? [[String: Any]])?.first
        if (object?["values"] as? [String: Any])?["plays"] as? Int != trial { misses += 1 }
        version = object?["version"] as? Int ?? version + 1
    }
    waits.sort()
    func percentile(_ p: Double) -> Double { waits.isEmpty ? 0 : waits[min(waits.count - 1, Int(Double(waits.count) * p))] }
    say(String(format: "read-your-writes, %d trials (save on A, then get after: seq on B): %d misses, get p50 %.2f ms, p99 %.2f ms, max %.2f ms",
               trials, misses, percentile(0.5), percentile(0.99), waits.last ?? 0))
    recordFigure("read-your-writes across 2 servers on PostgreSQL", data: "\(grouped(trials)) saves",
                 result: String(format: "%d misses; `get … after: seq` p50 %.2f ms, p99 %.2f ms", misses, percentile(0.5), percentile(0.99)))

    // Reads of one object, through a server and by pgbench on the same row.
    guard let target = ids.first, let reference = target.split(separator: "/").last else { throw BenchmarkError("no object to read") }
    let script = directory.appendingPathComponent("select.sql")
    try "SELECT \"_id\", \"_version\", \"title\", \"plays\" FROM \"Song\" WHERE \"_id\" = \(reference);\n".write(to: script, atomically: true, encoding: .utf8)
    _ = try runProgram("/bin/chmod", ["644", script.path])
    _ = try runProgram("/bin/chmod", ["755", directory.path])
    for readers in [1, 8] {
        let gets = try ReadLoad.run(port: first.port, clients: readers, seconds: seconds) { client in
            _ = try client.result("get", ["ids": [target]])
        }
        let fetches = try ReadLoad.run(port: first.port, clients: readers, seconds: seconds) { client in
            _ = try client.result("fetch", ["entity": "Song", "predicate": "title == %@", "arguments": ["song 0"]])
        }
        let output = try cluster.run("pgbench", ["-n", "-M", "prepared", "-c", String(readers), "-j", String(readers), "-T", String(Int(seconds)),
                                                 "-f", script.path, "-h", "127.0.0.1", "-p", String(cluster.port), "-U", "graph", "bench"])
        let tps = output.split(separator: "\n").first { $0.hasPrefix("tps = ") }
            .flatMap { Double($0.dropFirst(6).split(separator: " ").first ?? "") } ?? 0
        say(String(format: "%d client(s): get %.0f/s, fetch title == %.0f/s, pgbench (same row by _id) %.0f/s: get/pgbench %.2f, fetch/pgbench %.2f",
                   readers, gets, fetches, tps, gets / max(tps, 1), fetches / max(tps, 1)))
    }
    _ = second.stop()
    _ = first.stop()
} catch {
    say("PostgresBenchmarks failed: \(error)")
    ChildProcessReaper.stopAll()
    exit(1)
}
