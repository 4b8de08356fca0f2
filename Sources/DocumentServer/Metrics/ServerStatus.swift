import DocumentProtocol
import Foundation
import GraphCore
import JSONCore
import Synchronization

/// What a running server can tell about itself: for the `stats` method, `/metrics` and
/// `/readyz`. Everything is read when asked (sizes from the files, counts from the feed, the
/// sequence from the published state), so that nothing on the requests' path keeps it up.
final class ServerStatus: Sendable {
    /// How long a commit seen in a shared database may stay unapplied before the server counts as
    /// not caught up (`/readyz` answers 503).
    static let catchUpGrace: UInt64 = 2_000_000_000

    let meter: RequestMeter
    private let worker: StoreWorker
    private let opened = DispatchTime.now().uptimeNanoseconds
    let storeIdentifier: String
    private let journalPath: String?
    private let historyPath: String?
    private let shared: Bool
    /// Open connections on the line-protocol port.
    let connections = Atomic<Int>(0)
    /// Set when the server begins to shut down.
    let stopping = Atomic<Bool>(false)

    init(graph: StoreGraph, worker: StoreWorker, meter: RequestMeter) {
        self.meter = meter
        self.worker = worker
        storeIdentifier = graph.store.identifier
        journalPath = graph.journaled?.journalPath
        historyPath = graph.journaled?.historyPath
        shared = graph.sharedHistory != nil
        EngineMeters.prepare()
    }

    /// The figures at one moment.
    struct Snapshot: Sendable {
        var sequence: Int64
        var objects: Int
        /// Whether the state holds only a bounded cache's objects (`--cache-bytes`).
        var cacheBounded: Bool
        var connections: Int
        var subscriptions: Int
        var historyCommits: Int
        var journalBytes: Int?
        var historyBytes: Int?
        /// Over a shared database: commits it holds that this server has not applied; nil otherwise.
        var catchUpLag: Int64?
        var uptimeSeconds: Double
        /// Nil when ready, else why not.
        var unready: String?
    }

    func snapshot() -> Snapshot {
        let state = worker.reader.state
        let counts = worker.feed.counts
        let now = DispatchTime.now().uptimeNanoseconds
        var lag: Int64?
        var unready: String?
        if stopping.load(ordering: .relaxed) { unready = "the server is shutting down" }
        if shared {
            let sight = EngineMeters.shared.database.withLock { $0 }
            lag = sight.lag(applied: state.sequence)
            if unready == nil, sight.isBehind(applied: state.sequence, grace: Self.catchUpGrace, now: now) {
                unready = "catching up with the shared database: \(lag ?? 0) commits behind (applied \(state.sequence), the database holds \(sight.latest))"
            }
        }
        return Snapshot(sequence: state.sequence, objects: state.objectCount, cacheBounded: !state.isComplete, connections: connections.load(ordering: .relaxed),
                        subscriptions: counts.subscriptions, historyCommits: counts.historyCommits,
                        journalBytes: journalPath.flatMap(Self.fileSize), historyBytes: historyPath.flatMap(Self.fileSize),
                        catchUpLag: lag, uptimeSeconds: Double(now &- opened) / 1e9, unready: unready)
    }

    /// The `stats` result: sections as Redis' `INFO` has them.
    func statsResult() -> JSONValue {
        let figures = snapshot()
        let engine = EngineMeters.shared
        let slow = meter.slowLog.entries()
        func integer(_ value: Int?) -> JSONValue { value.map { .integer(Int64($0)) } ?? .null }
        return .object([
            ("server", .object([
                ("version", .string(DocumentServer.version)), ("uptimeSeconds", .number(String(format: "%.3f", figures.uptimeSeconds))),
                ("storeUUID", .string(storeIdentifier)), ("ready", .bool(figures.unready == nil)),
                ("unreadyReason", figures.unready.map { .string($0) } ?? .null),
            ])),
            ("store", .object([
                ("seq", .integer(figures.sequence)), ("objects", integer(figures.objects)),
                ("journalBytes", integer(figures.journalBytes)), ("historyBytes", integer(figures.historyBytes)),
                ("historyCommits", integer(figures.historyCommits)),
                ("commits", integer(engine.commitCount.load(ordering: .relaxed))),
                ("checkpoints", integer(engine.checkpointCount.load(ordering: .relaxed))),
                ("catchUpLag", figures.catchUpLag.map { .integer($0) } ?? .null),
            ])),
            ("cache", .object([
                ("bounded", .bool(figures.cacheBounded)),
                ("objectBytes", figures.cacheBounded ? integer(engine.cacheBytes.load(ordering: .relaxed)) : .null),
                ("misses", integer(engine.cacheMissCount.load(ordering: .relaxed))),
                ("reads", integer(engine.cacheReadCount.load(ordering: .relaxed))),
                ("evictions", integer(engine.cacheEvictionCount.load(ordering: .relaxed))),
                ("declined", integer(engine.cacheDeclinedCount.load(ordering: .relaxed))),
            ])),
            ("clients", .object([
                ("connections", integer(figures.connections)), ("subscriptions", integer(figures.subscriptions)),
                ("notifications", integer(engine.notificationCount.load(ordering: .relaxed))),
                ("resyncs", integer(engine.resyncCount.load(ordering: .relaxed))),
            ])),
            ("requests", meter.countsByMethod()),
            ("slowlog", .object([
                ("thresholdMilliseconds", integer(meter.slowLog.thresholdMilliseconds)), ("entries", integer(slow.entries.count)),
                ("total", integer(slow.total)),
            ])),
        ])
    }

    /// The `slowlog` result: the threshold, the count since the start, the entries oldest first;
    /// `reset` empties the log after reading it.
    func slowLogResult(reset: Bool) -> JSONValue {
        let slow = meter.slowLog.entries(reset: reset)
        return .object([
            (SlowLogMembers.thresholdMilliseconds, .integer(Int64(meter.slowLog.thresholdMilliseconds))),
            (SlowLogMembers.total, .integer(Int64(slow.total))), (SlowLogMembers.entries, .array(slow.entries.map(\.json))),
        ])
    }

    private static func fileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }
}
