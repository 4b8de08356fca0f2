import BenchmarkSupport
import Foundation

// docserver on PostgreSQL: read-your-writes across servers (save on A, then `fetch … after: seq`
// on B, which must find the saved value) with the wait of each read; a bulk insert in saves of
// 5,000 against the same rows inserted by one SQL statement; `docserver copy` of a JSON store.
// The throughput figures (`get` and durable saves through 1 and 2 servers beside pgbench) are
// ServerBenchmarks --postgres, through the same SwiftNIO load generator as every server figure.
//
//   swift run -c release --package-path Benchmarks PostgresBenchmarks [--clients N] [--trials N] [--bulk N] [--copy N] [--docserver PATH]

ChildProcessReaper.installSignalHandlers()
let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let clientCount = Int(option("--clients") ?? "") ?? 50
let trials = Int(option("--trials") ?? "") ?? 10_000
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

    // Read-your-writes across servers: a save on A, then a fetch on B naming its seq, which
    // must find the object by the value just saved.
    let second = try startServer("b")
    let writer = try RPCClient(port: first.port), reader = try RPCClient(port: second.port)
    guard let readTarget = ids.first else { throw BenchmarkError("no object to save") }
    var waits: [Double] = [], misses = 0
    var version = (try reader.result("get", ["ids": [readTarget]])["objects"] as? [[String: Any]])?.first?["version"] as? Int ?? 1
    for trial in 0..<trials {
        let plays = 1_000_000 + trial
        let saved = try writer.result("save", ["update": [["id": readTarget, "version": version, "values": ["plays": plays]]]])
        guard let seq = saved["seq"] as? Int else { throw BenchmarkError("a save answered no seq: \(saved)") }
        version = (saved["versions"] as? [String: Int])?[readTarget] ?? version + 1
        let started = Date()
        let got = try reader.result("fetch", ["entity": "Song", "predicate": "plays == %@", "arguments": [plays], "after": seq])
        waits.append(Date().timeIntervalSince(started) * 1000)
        let found = (got["objects"] as? [[String: Any]])?.contains { $0["id"] as? String == readTarget } ?? false
        if !found { misses += 1 }
    }
    waits.sort()
    func percentile(_ p: Double) -> Double { waits.isEmpty ? 0 : waits[min(waits.count - 1, Int(Double(waits.count) * p))] }
    say(String(format: "read-your-writes, %d trials (save on A, then fetch plays == the saved value, after: seq, on B): %d misses, "
               + "fetch p50 %.2f ms, p99 %.2f ms, max %.2f ms", trials, misses, percentile(0.5), percentile(0.99), waits.last ?? 0))
    recordFigure("read-your-writes across 2 servers on PostgreSQL", data: "\(grouped(trials)) saves",
                 result: String(format: "%d misses; `fetch … after: seq` p50 %.2f ms, p99 %.2f ms", misses, percentile(0.5), percentile(0.99)))

    // Bulk inserts: Songs in saves of 5,000 through one server, against the same rows inserted
    // by one INSERT … SELECT generate_series in psql (the database's own floor for them).
    let bulkObjects = Int(option("--bulk") ?? "") ?? 20_000, bulkSave = 5_000
    // The requests are encoded before the clock starts: the figure is the server's, not this client's JSON.
    let bulkRequests = try stride(from: 0, to: bulkObjects, by: bulkSave).map { start in
        let songs: [[String: Any]] = (start..<min(start + bulkSave, bulkObjects)).map {
            ["id": "b\($0)", "entity": "Song", "values": ["title": "bulk \($0)", "plays": $0]]
        }
        return try seeding.encoded("save", ["insert": songs])
    }
    let bulkStart = Date()
    let cpuBefore = ProcessCPU.seconds(pid: first.processIdentifier)
    for request in bulkRequests { _ = try seeding.result(request) }
    let bulkSeconds = Date().timeIntervalSince(bulkStart)
    let bulkCPU = (ProcessCPU.seconds(pid: first.processIdentifier) - cpuBefore) / Double(max(bulkObjects, 1)) * 1e6
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

    _ = second.stop()
    _ = first.stop()
} catch {
    say("PostgresBenchmarks failed: \(error)")
    ChildProcessReaper.stopAll()
    exit(1)
}
