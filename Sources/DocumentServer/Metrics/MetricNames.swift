/// The names of the server's metrics, as `/metrics` shows them (`docs/OPERATIONS.md`, What to
/// watch, says what each means), and their histograms' buckets.
enum MetricNames {
    /// Counter, by `method` and `outcome` (`ok`, `error`): requests answered.
    static let requests = "docserver_requests_total"
    /// Histogram (seconds), by `method` and `outcome`: from the request's line read to its answer made.
    static let requestDuration = "docserver_request_duration_seconds"
    /// Counter: requests slower than `--slow-request-ms` (each in the slow log).
    static let slowRequests = "docserver_slow_requests_total"
    /// Counter: commits made by this server.
    static let commits = "docserver_commits_total"
    /// Histogram: saves per group commit (one journal write and sync, or one transaction).
    static let groupCommitSaves = "docserver_group_commit_saves"
    /// Histogram (seconds): the journal's `fdatasync`.
    static let journalSync = "docserver_journal_fdatasync_seconds"
    /// Histogram (seconds): a checkpoint, from its start to the journal cut.
    static let checkpoint = "docserver_checkpoint_duration_seconds"
    /// Counter: `changes` notifications written to subscribers.
    static let notifications = "docserver_notifications_total"
    /// Counter: subscriptions ended with `resync`.
    static let resyncs = "docserver_resyncs_total"
    /// Counter: with `--cache-bytes`, objects a `get` missed in the cache and read from the database.
    static let cacheMisses = "docserver_cache_misses_total"
    static let cacheReads = "docserver_cache_reads_total"
    /// Counter: with `--cache-bytes`, objects let go to keep the cache within its budget.
    static let cacheEvictions = "docserver_cache_evictions_total"
    /// Counter: with `--cache-bytes`, objects read after a miss that the full cache did not keep
    /// (they had not missed before lately).
    static let cacheDeclined = "docserver_cache_declined_total"

    // Gauges, read when scraped.

    /// The number of the last commit readers see.
    static let sequence = "docserver_commit_seq"
    /// Objects in the published state.
    static let objects = "docserver_objects"
    /// Open connections on the line-protocol port.
    static let connections = "docserver_connections"
    /// Open subscriptions.
    static let subscriptions = "docserver_subscriptions"
    /// Bytes of the journal file (JSON store).
    static let journalBytes = "docserver_journal_bytes"
    /// Bytes of the history file (JSON store).
    static let historyBytes = "docserver_history_bytes"
    /// Commits kept in memory for `since` and `changes`.
    static let historyCommits = "docserver_history_commits"
    /// Over a shared database: commits the database holds that this server has not applied.
    static let catchUpLag = "docserver_catch_up_lag_commits"
    /// 1 when `/readyz` answers 200, else 0.
    static let ready = "docserver_ready"
    /// Seconds since the server's store was opened.
    static let uptime = "docserver_uptime_seconds"

    /// Request latencies: from 50 µs (a `get` answered on the connection's thread) to 10 s.
    static let requestBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .microseconds(2_500_000), .seconds(10),
    ]
    /// Sync latencies: 100 µs (a fast SSD's cache) to 5 s (a disk in trouble).
    static let syncBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1), .seconds(5),
    ]
    /// Checkpoints: 10 ms to 5 minutes.
    static let checkpointBuckets: [Duration] = [
        .milliseconds(10), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .microseconds(2_500_000), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(300),
    ]
    /// Group sizes: powers of two up to 256.
    static let groupBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256]
}
