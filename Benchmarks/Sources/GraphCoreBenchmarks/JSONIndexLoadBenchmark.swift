import Foundation
import BenchmarkSupport
import GraphCore
import JSONAtomicStore

/// The load-time target on a real store file: a JSON store of N songs loaded with the two
/// indexes of ``IndexBenchmark`` and without any, each load in a fresh process, alternated; and
/// durable saves (journal append + `fdatasync`) on the JSON store with and without the indexes:
/// `saveBlocks` blocks of 25 saves of 100 songs each way (8 by default, at most 10,000). `rounds` 0 skips the
/// loads (for A/B runs of the saves alone).
///
///   swift run -c release --package-path Benchmarks GraphCoreBenchmarks json-indexes [N] [rounds] [saveBlocks]
enum JSONIndexLoadBenchmark {
    static func open(_ path: String, indexed: Bool) throws -> (StoreCoordinator, JSONAtomicStore) {
        JSONAtomicStore.register()
        let coordinator = StoreCoordinator(model: try IndexBenchmark.model(indexed: indexed))
        // No checkpoint during the saves: each is one journal append.
        let store = try coordinator.addPersistentStore(type: "JSON", at: URL(fileURLWithPath: path),
                                                       options: StoreOptions(values: [JSONAtomicStore.journalCheckpointBytesOption: "0"]))
        guard let json = store as? JSONAtomicStore else { throw GraphError.store("not a JSON store") }
        return (coordinator, json)
    }

    /// Child: loads the store once and prints `{"load": seconds}`. The store stays open until the
    /// process exits: tearing down a million nodes is not part of a load.
    static func childLoad(_ path: String, indexed: Bool) throws -> Never {
        var opened: (StoreCoordinator, JSONAtomicStore)?
        let time = try IndexBenchmark.nanos { opened = try open(path, indexed: indexed) } / 1e9
        withExtendedLifetime(opened) { print("{\"load\": \(time)}") }
        exit(0)
    }

    /// Writes a store of `count` songs (the rows of ``IndexBenchmark``) as a snapshot file.
    static func generate(_ count: Int, at path: String) throws {
        let (coordinator, store) = try open(path, indexed: false)
        let context = ObjectContext(coordinator: coordinator)
        var rng = SystemRandomNumberGenerator()
        for n in 0..<count {
            try context.insert("Song", values: ["key": .string("key \(n % max(1, count / 5))"), "title": .string("song \(n)"),
                                                "plays": .int(Int64.random(in: 0..<Int64(max(1, count)), using: &rng)),
                                                "rating": .double(Double(n % 100) / 10)])
            if n % 100_000 == 99_999 {
                try context.save()
                context.reset()
            }
        }
        try context.save()
        try store.checkpoint()
    }

    static func run(count: Int, rounds: Int, saveBlocks: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("index-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("songs.json").path
        let made = try IndexBenchmark.nanos { try generate(count, at: path) } / 1e9
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print(String(format: "JSON store of %d songs: %.1f MB, written in %.1f s", count, Double(size) / 1e6, made))

        // Loads, each in a fresh process, alternating without and with the indexes.
        let executable = CommandLine.arguments[0]
        var loads: [Bool: [Double]] = [false: [], true: []]
        for round in 0..<rounds {
            for indexed in round % 2 == 0 ? [false, true] : [true, false] {
                let output = try programOutput(executable, ["json-load", path, indexed ? "1" : "0"])
                guard let seconds = loadSeconds(output) else { throw GraphError.store("no load time in \(output)") }
                loads[indexed, default: []].append(seconds)
            }
        }
        func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }
        let plain = median(loads[false] ?? []), indexed = median(loads[true] ?? [])
        if rounds > 0 {
            print(String(format: "JSON store load, fresh process each (median of %d, alternated): without indexes %.3f s, "
                         + "with 2 indexes %.3f s: %.2f x (target <= 1.3 x)", rounds, plain, indexed, indexed / plain)
                  + "; all: " + (loads[false] ?? []).map { fixed($0, 2) }.joined(separator: " ")
                  + " / " + (loads[true] ?? []).map { fixed($0, 2) }.joined(separator: " "))
        }

        // Durable saves in process: two copies of the store, one opened with the indexes,
        // saves alternated in blocks of 25 (100 inserts each).
        let copies = [false, true].map { directory.appendingPathComponent($0 ? "indexed.json" : "plain.json").path }
        for copy in copies { try FileManager.default.copyItem(atPath: path, toPath: copy) }
        let stores = try [false, true].map { try open(copies[$0 ? 1 : 0], indexed: $0) }
        var saveSeconds: [Bool: Double] = [:]
        // CPU time of the whole process (the index upkeep's worker thread included), so the cost
        // of a save is not hidden by running part of it beside the write.
        var saveCPUSeconds: [Bool: Double] = [:]
        var rng = SystemRandomNumberGenerator()
        var next = count
        for _ in 0..<saveBlocks {
            for indexed in [false, true] {
                let context = ObjectContext(coordinator: stores[indexed ? 1 : 0].0)
                for _ in 0..<25 {
                    for _ in 0..<100 {
                        next += 1
                        try context.insert("Song", values: ["key": .string("new \(next)"), "title": .string("song \(next)"),
                                                            "plays": .int(Int64.random(in: 0..<Int64(max(1, count)), using: &rng)),
                                                            "rating": 1.5])
                    }
                    let cpu = processCPUSeconds()
                    saveSeconds[indexed, default: 0] += try IndexBenchmark.nanos { try context.save() } / 1e9
                    saveCPUSeconds[indexed, default: 0] += processCPUSeconds() - cpu
                    context.reset()
                }
            }
        }
        let plainSaves = saveSeconds[false] ?? 0, indexedSaves = saveSeconds[true] ?? 0
        print(String(format: "%d durable JSON store saves of 100 inserted songs (journal + fdatasync), alternated: without indexes %.3f s, "
                     + "with 2 indexes %.3f s: %.2f x (target <= 1.2 x)", saveBlocks * 25, plainSaves, indexedSaves, indexedSaves / plainSaves))
        let plainCPU = saveCPUSeconds[false] ?? 0, indexedCPU = saveCPUSeconds[true] ?? 0
        print(String(format: "  CPU time of those saves (user + system, every thread): without indexes %.3f s, with 2 indexes %.3f s: "
                     + "%.2f x; %.2f µs more per index insert", plainCPU, indexedCPU, indexedCPU / plainCPU,
                     (indexedCPU - plainCPU) / (Double(saveBlocks) * 25 * 100 * 2) * 1e6))
    }

    /// User and system CPU time of the process so far, every thread's.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    private static func loadSeconds(_ output: String) -> Double? {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{\"load\"") }) else { return nil }
        return Double(line.dropFirst("{\"load\": ".count).dropLast())
    }
}
