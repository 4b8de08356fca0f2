import BenchmarkSupport
import Foundation
import GraphCore
import JSONAtomicStore
import NIOPosix

/// The whole run: stores, Redis, docserver, targets (see main.swift).
@MainActor
final class ServerBenchmark {
    let options: BenchmarkOptions
    let repository: URL
    let modelURL: URL
    /// Stores, logs and Redis files; removed at the end.
    let directory: URL
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    /// Drives the saving clients that run beside a measured read load.
    let backgroundGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    var binary = ""
    /// Warm `get` with 50 connections against Redis GET, in rounds: the first target.
    var get50: GetComparison?
    /// Every figure measured, by key (`get-50`, `save-10000-50`, …).
    var reports: [String: FigureReport] = [:]
    /// The saves that ran beside each read figure measured while saving, by its key.
    var savesBesideReads: [String: Measurement] = [:]
    /// Redis GET (our load generator, 50 connections) while 50 other connections SET durably:
    /// the like-for-like peer of `get` while 50 clients save.
    var redisGetBesideSets: RedisBaseline.Figure?
    /// Saves made, resident bytes after them, resident bytes of a fresh start.
    var memory: (saves: Int, after: Int, fresh: Int)?
    /// Live changes: save -> notification latency, Redis publish -> message latency, and the
    /// server's resident bytes before and after saves with a subscriber that never reads.
    var liveLatency: LiveLatency?
    var liveLatencyAfterAnswer: LiveLatency?
    var redisPubSubLatency: LiveLatency?
    var silentMemory: (before: Int, after: Int)?

    init(options: BenchmarkOptions) throws {
        self.options = options
        repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        modelURL = repository.appendingPathComponent("Sources/docserver/Resources/sample.model.json")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("server-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        ChildProcessReaper.removeOnStop(directory.path)
    }

    func run() async throws {
        printHeader()
        let stores = try buildStores()
        binary = try locateDocserver()
        let built = (try? FileManager.default.attributesOfItem(atPath: binary))?[.modificationDate] as? Date
        say("docserver: \(binary) (built \(built.map { "\($0)" } ?? "?"))")
        let redis = try startRedis()
        defer { redis.stop() }
        if options.liveOnly {
            try await measureLiveChanges(on: stores.small, redis: redis)
            printLiveTargets()
            return
        }
        if options.getOnly {
            try await measureGets(on: stores.large, redis: redis)
            try await measureReadsWhileSaving(on: stores.large, redis: redis, onlyGet: true)
            printTargets(stores: [])
            return
        }
        if options.savesOnly {
            for store in stores.all.reversed() { try await measureSaves(on: store, redis: redis) }
            return
        }
        try await measureReads(on: stores.large, redis: redis)
        try await measureReadsWhileSaving(on: stores.large, redis: redis)
        for store in stores.all.reversed() { try await measureSaves(on: store, redis: redis) }
        try await measureMemory(on: stores.small, saves: options.memorySavesToMake)
        try await measureLiveChanges(on: stores.small, redis: redis)
        printTargets(stores: stores.all)
        printLiveTargets()
    }

    func cleanUp() async {
        try? await group.shutdownGracefully()
        try? await backgroundGroup.shutdownGracefully()
        try? FileManager.default.removeItem(at: directory)
    }

    private func printHeader() {
        let commit = (try? runProgram("/usr/bin/env", ["git", "-C", repository.path, "log", "-1", "--format=%h %s"], quiet: true))?.output
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        say("Server benchmark (release build\(options.quick ? ", --quick" : "")), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
        say("repository: \(repository.path) at \(commit)")
        say("each load run: closed loop (one request in flight per connection); 50 connections on one SwiftNIO event-loop thread,"
            + " 1 connection with blocking write + read on one thread;"
            + " \(options.warmup.nanoseconds / 1_000_000) ms warm-up + \(options.duration.nanoseconds / 1_000_000) ms measured")
        let before = ProcessCPU.machineBusySeconds()
        usleep(1_000_000)
        let busy = ProcessCPU.machineBusySeconds() - before
        let load = Self.loadAverage()
        say("machine before the run: \(fixed(busy, 2)) of \(ProcessInfo.processInfo.activeProcessorCount) cores busy with other processes"
            + " (1 s sample), load average \(load)\(busy > 0.2 ? " -- SHARED: the figures are lower and noisier than on an idle machine" : "")")
        say()
    }

    /// The stores of the sample model: `large` (100,000 objects, the reads), `small` (10,000,
    /// memory) and `all` (by size, for saves: 10,000, 100,000 and 1,000,000 unless left out).
    private func buildStores() throws -> (large: BenchmarkStore, small: BenchmarkStore, all: [BenchmarkStore]) {
        JSONAtomicStore.register()
        let builder = SampleStoreBuilder(model: try ObjectModel(contentsOf: modelURL))
        var stores: [BenchmarkStore] = []
        for objects in options.liveOnly ? [10_000] : options.getOnly ? [100_000] : options.saveSizes.sorted() {
            let url = directory.appendingPathComponent("store-\(objects).json")
            let start = MonotonicClock.nanoseconds()
            let shape = try builder.build(objects: objects, at: url)
            let seconds = Double(MonotonicClock.nanoseconds() - start) / 1e9
            let store = BenchmarkStore(url: url, shape: shape, size: fileSize(url))
            stores.append(store)
            say("store: \(shape) written in \(fixed(seconds, 2)) s (GraphCore context + JSONAtomicStore), file \(megabytes(store.size))")
        }
        say()
        let large = stores.first { $0.shape.total == SampleStoreBuilder.Shape(objects: 100_000).total } ?? stores[stores.count - 1]
        return (large, stores[0], stores)
    }
}

extension ServerBenchmark {
    /// The release docserver the modes measure: `--docserver`, else the repository's release
    /// build, else one built into `.build-bench`.
    func locateDocserver() throws -> String {
        try DocServerBinary.locate(explicit: options.docserver, repository: repository,
                                   candidates: [".build/release/docserver", ".build-bench/release/docserver"],
                                   build: ["build", "-c", "release", "--scratch-path", ".build-bench", "--product", "docserver", "--enable-all-traits"],
                                   built: ".build-bench/release/docserver")
    }

    /// A store file of the sample model with `objects` objects in the run's directory, said.
    func sampleStore(objects: Int) throws -> BenchmarkStore {
        let builder = SampleStoreBuilder(model: try ObjectModel(contentsOf: modelURL))
        let url = directory.appendingPathComponent("store-\(objects).json")
        let shape = try builder.build(objects: objects, at: url)
        let store = BenchmarkStore(url: url, shape: shape, size: fileSize(url))
        say("store: \(shape), file \(megabytes(store.size))")
        return store
    }

    /// The machine's load average now (`/proc/loadavg`'s first three figures).
    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
    }
}
