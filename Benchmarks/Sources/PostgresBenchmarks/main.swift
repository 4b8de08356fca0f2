import BenchmarkSupport
import Foundation

// docserver on PostgreSQL, beside pgbench on the same database in the same run:
// durable saves/s with N clients through 1 and through 2 servers; `get` and a fetch by title
// through a server against pgbench reading the same row by primary key (pgbench -S's read).
//
//   swift run -c release --package-path Benchmarks PostgresBenchmarks [--seconds S] [--clients N] [--docserver PATH]

ChildProcessReaper.installSignalHandlers()
let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let seconds = Double(option("--seconds") ?? "") ?? 5
let clientCount = Int(option("--clients") ?? "") ?? 50
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

    let oneServer = try SaveLoad.run(ports: [first.port], ids: ids, seconds: seconds)
    let second = try startServer("b")
    let twoServers = try SaveLoad.run(ports: [first.port, second.port], ids: ids, seconds: seconds)
    say(String(format: "durable saves/s, %d clients (one object each, update with its version): 1 server %.0f, 2 servers %.0f (x %.2f)",
               clientCount, oneServer.rate, twoServers.rate, twoServers.rate / max(oneServer.rate, 1)))
    say("  errors: 1 server \(oneServer.errors), 2 servers \(twoServers.errors)")

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
