import BenchmarkSupport
import Foundation
import GraphCore
import JSONAtomicStore
#if canImport(Glibc)
import Glibc
#endif

/// `JSONStoreBenchmarks transfer [--objects N] [--runs R] [--docserver PATH]`: `docserver export`
/// and `docserver import` of a store of the sample model (issue 43's targets: export of 1,000,000
/// objects at 100 MB/s or more, import at 50 MB/s or more), beside Python's `json` module and `jq`
/// on the same NDJSON, in the same run.
///
/// 1. Writes a store of N objects (default 1,000,000) of the sample model through GraphCore
///    (`SampleStoreBuilder`).
/// 2. `docserver export --store S --to E` R times (default 2): MB/s of NDJSON written.
/// 3. `docserver import --quiet --store NEW --from E` R times, a new store each time: MB/s of
///    NDJSON read. The last imported store is exported again: its object lines must equal E's
///    (the header's commit sequence differs). Comparing `fetch` of every entity through servers
///    on both stores is `ExportImportTests`' job.
/// 4. Peers on E: `python3` reading it with `json.loads` per line and writing every object back
///    with `json.dumps` (two timed phases), and `jq -c . > /dev/null`.
///
/// Each figure: wall seconds, CPU seconds of the child (user + system, all its threads), MB/s
/// (wall), objects/s, and the load average when it started (the machine is shared).
enum TransferBenchmark {
    struct Options {
        var objects = 1_000_000
        var runs = 2
        var docserver: String?

        static let usage = "usage: JSONStoreBenchmarks transfer [--objects N] [--runs R] [--docserver PATH]"

        init(_ arguments: [String]) throws {
            var rest = arguments[...]
            while let argument = rest.popFirst() {
                switch argument {
                case "--objects":
                    guard let count = rest.popFirst().flatMap(Int.init), count >= 100 else { throw BenchmarkError("--objects needs a count of at least 100\n\(Self.usage)") }
                    objects = count
                case "--runs":
                    guard let count = rest.popFirst().flatMap(Int.init), count >= 1 else { throw BenchmarkError("--runs needs a count\n\(Self.usage)") }
                    runs = count
                case "--docserver":
                    guard let path = rest.popFirst() else { throw BenchmarkError("--docserver needs a path\n\(Self.usage)") }
                    docserver = path
                default: throw BenchmarkError("unknown argument \(argument)\n\(Self.usage)")
                }
            }
        }
    }

    /// One timed run of a child program.
    struct Run {
        let wall: Double
        let cpu: Double
        let load: String
    }

    static func main(_ arguments: [String]) throws {
        let options = try Options(arguments)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let binary = try DocServerBinary.locate(explicit: options.docserver, repository: repository,
                                                candidates: [".build/release/docserver", ".build-bench/release/docserver"],
                                                build: ["build", "-c", "release", "--scratch-path", ".build-bench", "--product", "docserver", "--enable-all-traits"],
                                                built: ".build-bench/release/docserver")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("transfer-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        ChildProcessReaper.removeOnStop(directory.path)
        defer { try? FileManager.default.removeItem(at: directory) }

        say("Export and import benchmark (release docserver \(binary), built \(DocServerBinary.modified(binary))), "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(Self.loadAverage())")
        JSONAtomicStore.register()
        let modelURL = repository.appendingPathComponent("Sources/docserver/Resources/sample.model.json")
        let store = directory.appendingPathComponent("store.json")
        let started = Date()
        let shape = try SampleStoreBuilder(model: try ObjectModel(contentsOf: modelURL)).build(objects: options.objects, at: store)
        say("store: \(shape), file \(fixed(Double(BenchmarkSupport.fileSize(store)) / 1e6, 1)) MB, written in \(fixed(Date().timeIntervalSince(started), 1)) s")
        let objects = shape.total

        let export = directory.appendingPathComponent("export.ndjson")
        var exports: [Run] = []
        for _ in 0..<options.runs {
            try? FileManager.default.removeItem(at: export)
            exports.append(try timed(binary, ["export", "--store", store.path, "--to", export.path]))
        }
        let bytes = BenchmarkSupport.fileSize(export)
        report("docserver export --to FILE", exports, bytes: bytes, objects: objects)

        var imports: [Run] = []
        let imported = directory.appendingPathComponent("imported.json")
        for _ in 0..<options.runs {
            for suffix in ["", "-journal", "-history", ".lock"] { try? FileManager.default.removeItem(atPath: imported.path + suffix) }
            imports.append(try timed(binary, ["import", "--quiet", "--store", imported.path, "--from", export.path]))
        }
        report("docserver import --from FILE", imports, bytes: bytes, objects: objects)

        let again = directory.appendingPathComponent("again.ndjson")
        _ = try timed(binary, ["export", "--store", imported.path, "--to", again.path])
        let identical = try sameObjectLines(export, again)
        say("round trip (export of the imported store): \(identical ? "object lines byte-identical to the first export's" : "object lines DIFFER from the first export's")")

        let python = try pythonPeer(export, output: directory.appendingPathComponent("python.ndjson"))
        say("peer: python3 json.loads per line: \(fixed(python.loads, 2)) s = \(fixed(Double(bytes) / 1e6 / python.loads, 1)) MB/s; "
            + "json.dumps per object + write: \(fixed(python.dumps, 2)) s = \(fixed(Double(bytes) / 1e6 / python.dumps, 1)) MB/s")
        var jqRun: Run?
        if let jq = which("jq") {
            let run = try timed(jq, ["-c", ".", export.path], discardOutput: true)
            jqRun = run
            report("peer: jq -c . > /dev/null", [run], bytes: bytes, objects: objects)
        }

        let data = "\(grouped(objects)) objects, \(fixed(Double(bytes) / 1e6, 0)) MB NDJSON"
        let bestExport = exports.map(\.wall).min() ?? .nan
        let bestImport = imports.map(\.wall).min() ?? .nan
        let exportRate = Double(bytes) / 1e6 / bestExport
        let importRate = Double(bytes) / 1e6 / bestImport
        say("targets: export \(fixed(exportRate, 1)) MB/s (>= 100: \(exportRate >= 100 ? "met" : "MISSED")), "
            + "import \(fixed(importRate, 1)) MB/s (>= 50: \(importRate >= 50 ? "met" : "MISSED")), "
            + "round trip \(identical ? "identical" : "DIFFERS")")
        let jqText = jqRun.map { String(format: "; jq -c . %.1f MB/s", Double(bytes) / 1e6 / $0.wall) } ?? ""
        recordFigure("docserver export (NDJSON)", data: data,
                     result: String(format: "%.2f s (%.0f MB/s, %.0f objects/s; Python json.dumps %.1f MB/s",
                                    bestExport, exportRate, Double(objects) / bestExport, Double(bytes) / 1e6 / python.dumps) + jqText + ")")
        recordFigure("docserver import (NDJSON)", data: data,
                     result: String(format: "%.2f s (%.0f MB/s, %.0f objects/s; Python json.loads %.1f MB/s",
                                    bestImport, importRate, Double(objects) / bestImport, Double(bytes) / 1e6 / python.loads) + jqText + ")")
        if !identical { throw BenchmarkError("the round trip's export differs from the first") }
    }

    /// Prints each run and the best.
    static func report(_ name: String, _ runs: [Run], bytes: Int, objects: Int) {
        for (index, run) in runs.enumerated() {
            say("\(name), run \(index + 1): \(fixed(run.wall, 2)) s wall, \(fixed(run.cpu, 2)) s CPU; "
                + "\(fixed(Double(bytes) / 1e6 / run.wall, 1)) MB/s, \(grouped(Int(Double(objects) / run.wall))) objects/s, "
                + "\(fixed(Double(bytes) / 1e6 / run.cpu, 1)) MB per CPU second (\(fixed(Double(bytes) / 1e6, 1)) MB; load average before \(run.load))")
        }
    }

    /// Runs a program to its end: wall and CPU seconds (user + system of the child, all threads).
    static func timed(_ executable: String, _ arguments: [String], discardOutput: Bool = false) throws -> Run {
        let load = Self.loadAverage()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        if !discardOutput { process.standardError = FileHandle.standardError }
        let cpuBefore = ProcessCPU.endedChildrenSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        ChildProcessReaper.register(process.processIdentifier)
        process.waitUntilExit()
        ChildProcessReaper.unregister(process.processIdentifier)
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpu = ProcessCPU.endedChildrenSeconds() - cpuBefore
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("\(URL(fileURLWithPath: executable).lastPathComponent) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return Run(wall: wall, cpu: cpu, load: load)
    }

    /// Python's json module on the export: seconds to `json.loads` every line, and to `json.dumps`
    /// every object and write the lines to `output`.
    static func pythonPeer(_ input: URL, output: URL) throws -> (loads: Double, dumps: Double) {
        let script = """
            import json, sys, time
            start = time.perf_counter()
            with open(sys.argv[1], "rb") as source:
                objects = [json.loads(line) for line in source]
            loaded = time.perf_counter()
            with open(sys.argv[2], "w", encoding="utf-8") as sink:
                for value in objects:
                    sink.write(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
                    sink.write("\\n")
            dumped = time.perf_counter()
            print(loaded - start, dumped - loaded)
            """
        let output = try programOutput("/usr/bin/env", ["python3", "-c", script, input.path, output.path])
        let figures = output.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
        guard figures.count == 2 else { throw BenchmarkError("python3 printed \(output)") }
        return (figures[0], figures[1])
    }

    /// Whether two exports hold the same object lines (the headers differ: an imported store's
    /// commit sequence starts again).
    static func sameObjectLines(_ a: URL, _ b: URL) throws -> Bool {
        let first = try Data(contentsOf: a, options: .alwaysMapped), second = try Data(contentsOf: b, options: .alwaysMapped)
        guard let x = first.firstIndex(of: 0x0A), let y = second.firstIndex(of: 0x0A) else { return first == second }
        return first[(x + 1)...] == second[(y + 1)...]
    }

    /// The machine's load average (`/proc/loadavg`'s first three figures).
    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
    }
}
