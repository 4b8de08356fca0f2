import Foundation
import BenchmarkSupport
import GraphCore
import JSONAtomicStore
import JSONCore

// JSON store benchmark: a store of N objects (4 attributes: string, int64, double, date; one
// to-one relationship each), loaded and saved by JSONAtomicStore and by Python's json module.
//
//   swift run -c release --package-path Benchmarks JSONStoreBenchmarks [N] [runs]
//   swift run -c release --package-path Benchmarks JSONStoreBenchmarks journal [saves] [journal records]
//   swift run -c release --package-path Benchmarks JSONStoreBenchmarks transfer [--objects N] [--runs R] [--docserver PATH]
//
// Loading is measured in a fresh process (this executable run as `load <file> <runs>`), so
// that generating the store does not count towards its memory.

let model = try PersonModel.make()
JSONAtomicStore.register()

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// A field of /proc/self/status in bytes (VmHWM: peak resident, VmRSS: resident now).
func status(_ field: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        let kilobytes = line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first
        return (kilobytes.flatMap { Int($0) } ?? 0) * 1024
    }
    return 0
}

func megabytes(_ bytes: Int) -> Double { Double(bytes) / 1_000_000 }

/// User + system CPU seconds of this process so far, all threads.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func value(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return value(usage.ru_utime) + value(usage.ru_stime)
}

func json(_ text: String) throws -> [String: Double] {
    let line = text.split(separator: "\n").last.map(String.init) ?? ""
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
    return (object as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.doubleValue }
}

// MARK: - `load <file> <saves> [model.json]`: load once (timed, peak memory), then save `saves` times (best is printed).

let arguments = CommandLine.arguments
if arguments.count >= 3, arguments[1] == "load" {
    let url = URL(fileURLWithPath: arguments[2])
    let runs = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
    // Another model (a JSON model file) for a store written by something else.
    let storeModel = arguments.count > 4 ? try ObjectModel(contentsOf: URL(fileURLWithPath: arguments[4])) : model
    let before = status("VmRSS")
    let coordinator = StoreCoordinator(model: storeModel)
    var store: PersistentStore?
    let cpuBefore = cpuSeconds()
    let load = try seconds { store = try coordinator.addPersistentStore(type: "JSON", at: url) }
    let cpu = cpuSeconds() - cpuBefore
    let peak = status("VmHWM"), resident = status("VmRSS")
    guard let store = store as? JSONAtomicStore else { exit(1) }
    var saves: [Double] = []
    for _ in 0..<runs { saves.append(try seconds { try store.save() }) }
    print("{\"load\": \(load), \"peak\": \(peak), \"resident\": \(resident), \"before\": \(before), \"objects\": \(store.cacheNodeCount), \"save\": \(saves.min() ?? 0), \"cpu\": \(cpu)}")
    exit(0)
}

/// Writes a store of `count` objects at `url` through a context; returns the seconds taken.
func generate(_ count: Int, at url: URL) throws -> Double {
    let coordinator = StoreCoordinator(model: model)
    let store = try coordinator.addPersistentStore(type: "JSON", at: url)
    defer { coordinator.remove(store) }
    let context = ObjectContext(coordinator: coordinator)
    let epoch = Date(timeIntervalSince1970: 1_700_000_000.125)
    return try seconds {
        var previous: ManagedObject?
        for i in 0..<count {
            let person = try context.insert("Person")
            try person.setValue(.string("person number \(i)"), forKey: "name")
            try person.setValue(.int(Int64(i) * 7919), forKey: "serial")
            try person.setValue(.double(Double(i) * 0.37), forKey: "score")
            try person.setValue(.date(epoch.addingTimeInterval(Double(i) * 61.001)), forKey: "born")
            if let partner = previous {
                try person.setObject(partner, forKey: "partner")
                previous = nil
            } else {
                previous = person
            }
        }
        try context.save()
    }
}

// MARK: - `generate <file> [N]`: only write a store (for profiling).

if arguments.count >= 3, arguments[1] == "generate" {
    let count = arguments.count > 3 ? Int(arguments[3]) ?? 1_000_000 : 1_000_000
    print(String(format: "generated %d objects in %.2f s", count, try generate(count, at: URL(fileURLWithPath: arguments[2]))))
    exit(0)
}

// MARK: - `syntax <file>`: the JSON layer alone (yajl + events, no store), for comparison.

if arguments.count >= 3, arguments[1] == "syntax" {
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[2]))
    let time = try seconds {
        try data.withUnsafeBytes { bytes in
            let parser = JSONEventParser(handler: JSONSyntaxChecker())
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + (1 << 20), bytes.count)
                try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                offset = end
            }
            try parser.finish()
        }
    }
    print("{\"syntax\": \(time)}")
    exit(0)
}

// MARK: - `journal [saves] [records]`: the journal benchmark (JournalBenchmark.swift).

if arguments.count >= 3, arguments[1] == "journal-saves" {
    try JournalBenchmark.saves(arguments[2], count: arguments.count > 3 ? Int(arguments[3]) ?? 1000 : 1000)
}
if arguments.count >= 3, arguments[1] == "journal-open" {
    try JournalBenchmark.openOnce(arguments[2])
}
if arguments.count >= 2, arguments[1] == "journal" {
    try JournalBenchmark.main(saves: arguments.count > 2 ? Int(arguments[2]) ?? 2000 : 2000,
                              records: arguments.count > 3 ? Int(arguments[3]) ?? 100_000 : 100_000,
                              generate: generate)
    exit(0)
}

// MARK: - `transfer [--objects N] [--runs R] [--docserver PATH]`: docserver export and import (TransferBenchmark.swift).

if arguments.count >= 2, arguments[1] == "transfer" {
    ChildProcessReaper.installSignalHandlers()
    do {
        try TransferBenchmark.main(Array(arguments.dropFirst(2)))
    } catch {
        say("transfer benchmark stopped: \(error)")
        exit(1)
    }
    exit(0)
}

// MARK: - Main: generate, then measure in child processes.

let count = arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
let runs = arguments.dropFirst(2).first.flatMap(Int.init) ?? 3
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("json-store-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let storeURL = directory.appendingPathComponent("store.json")

print("JSON store benchmark: \(count) objects of entity Person (4 attributes: string, int64, double, date; one to-one relationship), release build, \(runs) runs")
print(String(format: "generate (insert + first save through a context): %.2f s", try generate(count, at: storeURL)))
let fileSize = (try FileManager.default.attributesOfItem(atPath: storeURL.path)[.size] as? NSNumber)?.intValue ?? 0
let mb = megabytes(fileSize)
print(String(format: "file size: %.1f MB (%d bytes, %.0f bytes/object)", mb, fileSize, Double(fileSize) / Double(count)))

let loadAverage = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
var loads: [Double] = [], saves: [Double] = [], peaks: [Int] = [], residents: [Int] = [], cpus: [Double] = []
for _ in 0..<runs {
    let result = try json(try programOutput(executable, ["load", storeURL.path, "1"]))
    loads.append(result["load"] ?? 0)
    cpus.append(result["cpu"] ?? 0)
    saves.append(result["save"] ?? 0)
    peaks.append(Int(result["peak"] ?? 0))
    residents.append(Int(result["resident"] ?? 0))
}

let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("scripts/json_bench.py").path
let python = "/usr/bin/env"
var pythonLoads: [Double] = [], pythonPeaks: [Int] = [], pythonDumps: [Double] = [], pythonOneStringDumps: [Double] = []
for _ in 0..<runs {
    let result = try json(try programOutput(python, ["python3", script, "load", storeURL.path]))
    pythonLoads.append(result["seconds"] ?? 0)
    pythonPeaks.append(Int(result["peakRSS"] ?? 0))
    let dumped = try json(try programOutput(python, ["python3", script, "dump", storeURL.path, directory.appendingPathComponent("python.json").path]))
    pythonDumps.append(dumped["seconds"] ?? 0)
    let dumpedAsString = try json(try programOutput(python, ["python3", script, "dumps", storeURL.path, directory.appendingPathComponent("python.json").path]))
    pythonOneStringDumps.append(dumpedAsString["seconds"] ?? 0)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func summary(_ values: [Double]) -> String {
    values.map { String(format: "%.3f", $0) }.joined(separator: " / ") + String(format: " s; median %.3f", median(values))
}
let bestLoad = loads.min() ?? 0, bestSave = saves.min() ?? 0
let bestPythonLoad = pythonLoads.min() ?? 0, bestPythonDump = pythonDumps.min() ?? 0
print("")
print("JSONAtomicStore load (fresh process, open store = read + parse + resolve + check inverses):")
print("  runs: \(summary(loads)) s = \(String(format: "%.0f", mb / median(loads))) MB/s; best \(String(format: "%.3f s = %.0f MB/s (target >= 200 MB/s, issue 15)", bestLoad, mb / bestLoad))")
print("  CPU time of the load (user + system, every thread): \(summary(cpus)); the machine has "
      + "\(ProcessInfo.processInfo.activeProcessorCount) cores, load average before the runs \(loadAverage)")
print("  peak resident (VmHWM) after load: \(peaks.map { String(format: "%.0f MB", megabytes($0)) }.joined(separator: " / ")); "
      + String(format: "%.2f x file size (target <= 3)", Double(peaks.max() ?? 0) / Double(fileSize)))
print("  resident (VmRSS) while loaded: \(residents.map { String(format: "%.0f MB", megabytes($0)) }.joined(separator: " / "))")
print("JSONAtomicStore save (store.save(): generate + write + fsync + rename + fsync directory):")
print("  runs: \(summary(saves)) s = \(String(format: "%.0f", mb / median(saves))) MB/s; best \(String(format: "%.3f s = %.0f MB/s (target >= 120 MB/s)", bestSave, mb / bestSave))")
print("Python \(try programOutput(python, ["python3", "--version"]).trimmingCharacters(in: .whitespacesAndNewlines)) json.load of the same file:")
print("  runs: \(summary(pythonLoads)) s; best \(String(format: "%.3f s = %.0f MB/s", bestPythonLoad, mb / bestPythonLoad)); "
      + "peak resident \(String(format: "%.0f MB", megabytes(pythonPeaks.max() ?? 0)))")
print("Python json.dump (compact, ensure_ascii=False) + fsync of the same document:")
print("  runs: \(summary(pythonDumps)) s; best \(String(format: "%.3f s = %.0f MB/s", bestPythonDump, mb / bestPythonDump))")
print("")
let bestPythonDumps = pythonOneStringDumps.min() ?? 0
print("Python json.dumps (one string, C encoder) + write + fsync of the same document:")
print("  runs: \(summary(pythonOneStringDumps)) s; best \(String(format: "%.3f s = %.0f MB/s", bestPythonDumps, mb / bestPythonDumps)); "
      + String(format: "save %.2fx faster", bestPythonDumps / bestSave))
print(String(format: "ratios, best of runs: load %.2fx faster than json.load; save %.2fx faster than json.dump; peak memory %.2fx of Python's",
             bestPythonLoad / bestLoad, bestPythonDump / bestSave, Double(peaks.max() ?? 0) / Double(pythonPeaks.max() ?? 1)))
recordFigure("load a JSON store file", data: "\(grouped(count)) objects, \(String(format: "%.0f", mb)) MB",
             result: String(format: "%.2f s (%.0f MB/s; %.1f x Python's `json.load`)", bestLoad, mb / bestLoad, bestPythonLoad / bestLoad))
recordFigure("save (write + fsync) the same file", data: "\(String(format: "%.0f", mb)) MB",
             result: String(format: "%.2f s (%.0f MB/s; %.1f x Python's `json.dump`)", bestSave, mb / bestSave, bestPythonDump / bestSave))
print(String(format: "ratios, medians:      load %.2fx faster than json.load; save %.2fx faster than json.dump",
             median(pythonLoads) / median(loads), median(pythonDumps) / median(saves)))
