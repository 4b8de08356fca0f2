import BenchmarkSupport
import Foundation
import GraphCore
import JSONAtomicStore

extension ServerBenchmark {
    /// `--memory`: resident memory of one server on a store of `--memory-objects` objects
    /// (default 10,000) at start, after each quarter of `--memory-saves` durable saves (default
    /// 1,000,000; 50 clients, each updating its own Song), and of a fresh server started on the
    /// same store afterwards; with the store's files (snapshot, journal) at each point.
    func runMemoryAfterSaves() async throws {
        say("Server benchmark --memory (release build), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
        JSONAtomicStore.register()
        let builder = SampleStoreBuilder(model: try ObjectModel(contentsOf: modelURL))
        let url = directory.appendingPathComponent("store-\(options.memoryObjects).json")
        let shape = try builder.build(objects: options.memoryObjects, at: url)
        let store = BenchmarkStore(url: url, shape: shape, size: fileSize(url))
        say("store: \(shape), file \(megabytes(store.size))")
        binary = try locateDocserver()
        say("docserver: \(binary)")
        let total = options.memorySaves ?? 1_000_000
        let milestones = (1...4).map { total * $0 / 4 }
        var saved = 0
        var start = 0
        var afterAnonymous = 0
        let began = MonotonicClock.nanoseconds()
        try await withServer(on: store) { session, _ in
            let songs = try session.ids(of: "Song")
            let pid = session.server.processIdentifier
            start = ProcessCPU.residentBytes(pid: pid)
            say("resident at start (after one request): \(resident(pid).text); \(storeFiles(of: store))")
            let stride = max(songs.count / 50, 1)
            let owned = (0..<50).map { songs[($0 * stride) % songs.count] }
            var rate = 10_000.0
            for milestone in milestones {
                while saved < milestone {
                    // Runs of about 2 s, the last one cut to end near the milestone.
                    let seconds = min(2.0, max(0.05, Double(milestone - saved) / rate))
                    let versions = try session.versions(of: owned)
                    let load = LoadGenerator(group: group, host: session.server.host, port: session.server.port,
                                             warmup: .milliseconds(1), duration: .milliseconds(Int64(seconds * 1000)))
                    let measurement = try await load.run(connections: 50, workload: UpdateWorkload.factory(songs: owned, versions: versions))
                    if measurement.errors > 0 { throw BenchmarkError("saves failed: \(measurement.firstError ?? "?")") }
                    saved += measurement.answers
                    rate = max(measurement.requestsPerSecond, 100)
                }
                let now = resident(pid)
                let elapsed = Double(MonotonicClock.nanoseconds() - began) / 1e9
                say("resident after \(grouped(saved)) durable saves (\(fixed(elapsed, 0)) s): \(now.text)"
                    + " = \(fixed(Double(now.total) / Double(max(start, 1)), 3)) x start; \(storeFiles(of: store))")
            }
            let now = resident(pid)
            memory = (saved, now.total, 0)
            afterAnonymous = now.anonymous
        }
        var fresh = 0, freshAnonymous = 0
        try await withServer(on: store) { session, _ in
            let pid = session.server.processIdentifier
            let songs = try session.ids(of: "Song")  // one request, as at the start above
            let first = resident(pid)
            fresh = first.total
            freshAnonymous = first.anonymous
            // The same server once its save and checkpoint code has run: the pages of code a
            // fresh start has not touched yet are part of the difference above.
            let owned = (0..<50).map { songs[($0 * max(songs.count / 50, 1)) % songs.count] }
            let versions = try session.versions(of: owned)
            let load = LoadGenerator(group: group, host: session.server.host, port: session.server.port,
                                     warmup: .milliseconds(1), duration: .seconds(1))
            let warm = try await load.run(connections: 50, workload: UpdateWorkload.factory(songs: owned, versions: versions))
            say("fresh start on the same store: \(first.text) after one request;"
                + " \(resident(pid).text) after \(grouped(warm.answers)) more durable saves (1 s)")
        }
        let after = memory?.after ?? 0
        say("resident memory [\(store.label) at the start]: \(megabytes(after)) after \(grouped(saved)) durable saves (50 clients),"
            + " \(megabytes(fresh)) on a fresh start on the same store afterwards = \(fixed(Double(after) / Double(max(fresh, 1)), 3)) x"
            + " (target <= 1.2 x: \(Double(after) <= 1.2 * Double(fresh) ? "MET" : "NOT MET"));"
            + " anonymous \(megabytes(afterAnonymous)) against \(megabytes(freshAnonymous)) = \(fixed(Double(afterAnonymous) / Double(max(freshAnonymous, 1)), 3)) x;"
            + " \(storeFiles(of: store))")
    }

    /// Resident bytes of `pid` and, of them, anonymous ones (heap and stacks: what the server
    /// allocated, without the pages of its code and libraries, which grow as more of the code
    /// runs), e.g. "53.1 MB (anonymous 20.4 MB)".
    private func resident(_ pid: Int32) -> (total: Int, anonymous: Int, text: String) {
        let total = ProcessCPU.residentBytes(pid: pid)
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") }
        let kilobytes = line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        return (total, kilobytes * 1024, "\(megabytes(total)) (anonymous \(megabytes(kilobytes * 1024)))")
    }

    /// The sizes of the store's files (the snapshot and what lies beside it: journal, history).
    private func storeFiles(of store: BenchmarkStore) -> String {
        let folder = store.url.deletingLastPathComponent()
        let name = store.url.lastPathComponent
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasPrefix(name) }.sorted()
        return "files: " + files.map { "\($0 == name ? "snapshot" : String($0.dropFirst(name.count))) \(megabytes(fileSize(folder.appendingPathComponent($0))))" }
            .joined(separator: ", ")
    }
}
