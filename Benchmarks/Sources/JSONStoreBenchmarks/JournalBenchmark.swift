import Foundation
import BenchmarkSupport
import GraphCore
import JSONAtomicStore

// The journal (issue 15): durable in-process saves of one update on stores of different
// sizes (the cost must not depend on the size), and the time to open a store with and
// without a journal of many saves.
//
//   swift run -c release --package-path Benchmarks JSONStoreBenchmarks journal [saves] [journal records]
//
// Each measurement runs in a fresh process (this executable as `journal-saves` / `journal-open`).

enum JournalBenchmark {
    static func elapsed(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func open(_ path: String, checkpointBytes: String = "0") throws -> (StoreCoordinator, JSONAtomicStore) {
        JSONAtomicStore.register()
        let coordinator = StoreCoordinator(model: try PersonModel.make())
        let store = try coordinator.addPersistentStore(
            type: "JSON", at: URL(fileURLWithPath: path),
            options: StoreOptions(values: [JSONAtomicStore.journalCheckpointBytesOption: checkpointBytes]))
        guard let json = store as? JSONAtomicStore else { throw GraphError.store("not a JSON store") }
        return (coordinator, json)
    }

    /// Child: opens the store, makes `count` saves of one update each (a different object
    /// each time), prints saves/s and the median and 99th percentile of one save, and exits
    /// without a checkpoint (the journal stays).
    static func saves(_ path: String, count: Int) throws -> Never {
        let (coordinator, store) = try open(path)
        let context = ObjectContext(coordinator: coordinator)
        let people = try context.fetch(FetchRequest(entityName: "Person"))
        guard !people.isEmpty else { exit(1) }
        var times: [Double] = []
        times.reserveCapacity(count)
        let total = try elapsed {
            for index in 0..<count {
                let person = people[(index * 7919) % people.count]
                try person.setValue(.int(Int64(index)), forKey: "serial")
                times.append(try elapsed { try context.save() })
            }
        }
        times.sort()
        print("{\"perSecond\": \(Double(count) / total), \"p50\": \(times[times.count / 2]), \"p99\": \(times[times.count * 99 / 100]), "
              + "\"journal\": \(store.journalByteCount), \"objects\": \(store.cacheNodeCount)}")
        exit(0)
    }

    /// Child: opens the store (snapshot + journal) and prints the time it took.
    static func openOnce(_ path: String) throws -> Never {
        var store: JSONAtomicStore?
        let time = try elapsed { store = try open(path).1 }
        print("{\"open\": \(time), \"records\": \(store?.replayedRecordCount ?? 0), \"objects\": \(store?.cacheNodeCount ?? 0)}")
        exit(0)
    }

    static func child(_ executable: String, _ arguments: [String]) throws -> [String: Double] {
        let output = try programOutput(executable, arguments)
        let line = output.split(separator: "\n").last.map(String.init) ?? ""
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return (object as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }

    static func main(saves: Int, records: Int, generate: (Int, URL) throws -> Double) throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("json-journal-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        print("JSON store journal benchmark: Person objects (4 attributes, a to-one with inverse), release build, on \(directory.path)")
        print("Durable saves in process (context.save() of one update = one journal append + fdatasync), \(saves) saves each:")
        var largest: URL?
        for count in [10_000, 100_000, 1_000_000] {
            let url = directory.appendingPathComponent("store-\(count).json")
            _ = try generate(count, url)
            let result = try child(executable, ["journal-saves", url.path, String(saves)])
            print(String(format: "  %9d objects: %7.0f saves/s, p50 %.3f ms, p99 %.3f ms", count, result["perSecond"] ?? 0,
                         (result["p50"] ?? 0) * 1000, (result["p99"] ?? 0) * 1000))
            if count == 1_000_000 { largest = url }
        }
        guard let url = largest else { return }
        // A checkpoint first, so that the store opens from the snapshot alone.
        do {
            let (coordinator, store) = try open(url.path)
            try store.checkpoint()
            coordinator.remove(store)
        }
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
        var without: [Double] = []
        for _ in 0..<3 { without.append(try child(executable, ["journal-open", url.path])["open"] ?? 0) }
        let made = try child(executable, ["journal-saves", url.path, String(records)])
        let journalBytes = Int(made["journal"] ?? 0)
        var with: [Double] = []
        var replayed = 0.0
        for _ in 0..<3 {
            let result = try child(executable, ["journal-open", url.path])
            with.append(result["open"] ?? 0)
            replayed = result["records"] ?? 0
        }
        let bestWithout = without.min() ?? 0, bestWith = with.min() ?? 0
        print(String(format: "Open 1,000,000 objects (snapshot %.1f MB): without journal best %.3f s (%.0f MB/s of snapshot); "
                     + "with a journal of %.0f records (%.1f MB) best %.3f s: %.2fx",
                     Double(size) / 1e6, bestWithout, Double(size) / 1e6 / bestWithout, replayed, Double(journalBytes) / 1e6,
                     bestWith, bestWith / bestWithout))
        print("  runs without: \(without.map { String(format: "%.3f", $0) }.joined(separator: " / ")) s; "
              + "with: \(with.map { String(format: "%.3f", $0) }.joined(separator: " / ")) s")
    }
}
