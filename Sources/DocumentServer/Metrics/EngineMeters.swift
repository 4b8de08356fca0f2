import CoreMetrics
import Foundation
import JSONAtomicStore
import Synchronization

/// What the engine reports as it works: commits and their group sizes, the journal's syncs,
/// checkpoints, notifications and resyncs, and over a shared database the newest commit seen
/// there. Each hook in the engine is one call here.
///
/// Process-wide, through swift-metrics' global factory (`MetricsSystem`), as swift-metrics
/// means libraries to report: a program that bootstraps it (``PrometheusExport/bootstrap()``,
/// which `docserver serve --http-port` does) gets the figures, one that does not pays a no-op
/// call. The handles are made at first use, after the bootstrap. The counts ``stats`` answers
/// are kept beside them in atomics: a counter of swift-metrics cannot be read back.
final class EngineMeters: Sendable {
    /// The one instance.
    static let shared = EngineMeters()

    private let commits: Counter
    private let groupSizes: Recorder
    private let journalSyncs: CoreMetrics.Timer
    private let checkpoints: CoreMetrics.Timer
    private let notifications: Counter
    private let resyncs: Counter
    private let cacheMisses: Counter
    private let cacheReads: Counter
    private let cacheEvictions: Counter
    private let cacheDeclined: Counter

    /// Since the process started: commits, saves committed, notifications written, resyncs sent, checkpoints written.
    let commitCount = Atomic<Int>(0)
    let notificationCount = Atomic<Int>(0)
    let resyncCount = Atomic<Int>(0)
    let checkpointCount = Atomic<Int>(0)
    /// With a bounded cache: objects read from the database after a miss, the reads that read
    /// them (a read answers the misses of every request queued for it), objects let go, objects
    /// read that the full cache did not keep (``AdmissionFilter``), and the estimate of the bytes
    /// the cache's objects take (written by the writer).
    let cacheMissCount = Atomic<Int>(0)
    let cacheReadCount = Atomic<Int>(0)
    let cacheEvictionCount = Atomic<Int>(0)
    let cacheDeclinedCount = Atomic<Int>(0)
    let cacheBytes = Atomic<Int>(0)
    /// Over a shared database: what the watcher last saw there (``databaseHolds(_:applied:)``).
    let database = Mutex(DatabaseSight())

    /// The newest commit a shared database held when the watcher last looked, and the oldest
    /// commit it saw there that this server had not applied then (with when it saw it).
    struct DatabaseSight: Sendable {
        var latest: Int64 = 0
        /// A commit the server must apply to be caught up, and when it was seen (uptime nanoseconds).
        var awaited: (sequence: Int64, since: UInt64)?

        /// Commits the database holds that a server at `applied` has not: 0 when it holds none more.
        func lag(applied: Int64) -> Int64 { max(0, latest - applied) }

        /// Whether a server at `applied` has failed for `grace` to apply a commit seen in the database.
        func isBehind(applied: Int64, grace: UInt64, now: UInt64) -> Bool {
            guard let awaited, applied < awaited.sequence else { return false }
            return now &- awaited.since > grace
        }
    }

    private init() {
        commits = Counter(label: MetricNames.commits)
        groupSizes = Recorder(label: MetricNames.groupCommitSaves, aggregate: true)
        journalSyncs = CoreMetrics.Timer(label: MetricNames.journalSync)
        checkpoints = CoreMetrics.Timer(label: MetricNames.checkpoint)
        notifications = Counter(label: MetricNames.notifications)
        resyncs = Counter(label: MetricNames.resyncs)
        cacheMisses = Counter(label: MetricNames.cacheMisses)
        cacheReads = Counter(label: MetricNames.cacheReads)
        cacheEvictions = Counter(label: MetricNames.cacheEvictions)
        cacheDeclined = Counter(label: MetricNames.cacheDeclined)
        let syncs = journalSyncs
        JournalSyncTimes.observe { nanoseconds in syncs.recordNanoseconds(nanoseconds) }
    }

    /// Makes the handles now (and starts watching the journal's syncs): called when a server
    /// is made, so that the first commit does not pay for it.
    static func prepare() { _ = shared }

    /// The writer published `commits` commits made of a group of `saves` saves.
    func committed(saves: Int, commits count: Int) {
        commits.increment(by: Int64(count))
        groupSizes.record(saves)
        commitCount.add(count, ordering: .relaxed)
    }

    /// A checkpoint's snapshot was written and the journal cut, `seconds` after it began.
    func checkpointWritten(seconds: Double) {
        // Clamped to 0...1e9 s (NaN as 0), so that the conversion cannot trap.
        checkpoints.recordNanoseconds(seconds.isNaN ? 0 : Int64(min(max(seconds, 0), 1e9) * 1e9))
        checkpointCount.add(1, ordering: .relaxed)
    }

    /// A `changes` notification was written to a subscriber.
    func notificationWritten() {
        notifications.increment()
        notificationCount.add(1, ordering: .relaxed)
    }

    /// A reader read `count` objects its cache missed from the database, in one read.
    func cacheMissed(_ count: Int) {
        cacheMisses.increment(by: Int64(count))
        cacheMissCount.add(count, ordering: .relaxed)
        cacheReads.increment()
        cacheReadCount.add(1, ordering: .relaxed)
    }

    /// The writer let `count` objects go; the cache's objects now take about `bytes`.
    func cacheHolds(bytes: Int, evicted count: Int) {
        if count > 0 {
            cacheEvictions.increment(by: Int64(count))
            cacheEvictionCount.add(count, ordering: .relaxed)
        }
        cacheBytes.store(bytes, ordering: .relaxed)
    }

    /// The full cache did not keep `count` objects read after a miss (``AdmissionFilter``).
    func cacheDeclined(_ count: Int) {
        guard count > 0 else { return }
        cacheDeclined.increment(by: Int64(count))
        cacheDeclinedCount.add(count, ordering: .relaxed)
    }

    /// A subscription ended with `resync`.
    func resyncSent() {
        resyncs.increment()
        resyncCount.add(1, ordering: .relaxed)
    }

    /// The watcher of a shared database saw `sequence` as its newest commit while the server
    /// had applied `applied` (once a second: not on a request's path).
    func databaseHolds(_ sequence: Int64, applied: Int64) {
        let now = DispatchTime.now().uptimeNanoseconds
        database.withLock { sight in
            sight.latest = sequence
            if let awaited = sight.awaited, applied < awaited.sequence { return }  // still waiting for that one
            sight.awaited = sequence > applied ? (sequence, now) : nil
        }
    }
}
