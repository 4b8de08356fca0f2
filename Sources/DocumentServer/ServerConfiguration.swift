import Foundation

/// How a ``DocumentServer`` listens and what it accepts.
public struct ServerConfiguration: Sendable {
    /// The address to listen on; `127.0.0.1` unless said otherwise.
    public var host: String
    /// The TCP port; 0 picks a free one (``DocumentServer/run(onListening:)`` reports it).
    public var port: Int
    /// When set, every connection must `hello` with this token first. Required for a
    /// non-loopback ``host``.
    public var authToken: String?
    /// TLS on the line protocol: the certificate and key (and the client certificates'
    /// authorities); nil: plain TCP. (`docs/SECURITY.md`)
    public var tls: TLSFiles?
    /// The users file (`docs/SECURITY.md`): every connection must `hello` as one of its users.
    public var usersFile: String?
    /// Listen on an address other than loopback without TLS and without users or a token:
    /// refused unless this is set (and then logged as a warning).
    public var insecure = false
    /// The longest line (message) accepted, in bytes; a longer one is refused and its
    /// connection closed.
    public var maximumLineLength: Int
    /// Threads for network I/O.
    public var ioThreads: Int
    /// Threads that answer reads (`fetch`, `get`s of many IDs) from the latest committed
    /// state, beside the writer thread; nil: one per core.
    public var readerThreads: Int?
    /// How many nice steps (0...19) the writer thread runs below the readers and the network
    /// threads: on a machine whose cores are all busy, the scheduler gives reads the CPU the
    /// writer's validation, commit and publication would take, so that fetches slow down less
    /// while saves run, and saves get what the reads leave. 0 gives the writer the readers'
    /// priority (more saves per second whenever every core is busy, slower reads). Checkpoints,
    /// which the writer starts, run at its priority.
    public var writerNice: Int = ServerConfiguration.defaultWriterNice
    /// The default writer nice: 10.
    public static let defaultWriterNice = 10
    /// How long one fetch may run on a reader thread; past it the request fails with
    /// error -32007 (time limit exceeded) and the thread is free again. Nil: no limit.
    public var requestTimeLimit: Duration?
    /// The default request time limit: 10 seconds.
    public static let defaultRequestTimeLimit: Duration = .seconds(10)

    // MARK: Limits on requests, answers and resources (`docs/PROTOCOL.md`, Limits)

    /// The most requests one batch may hold; a longer batch is refused whole (-32005).
    public var maximumBatchRequests: Int = ServerConfiguration.defaultMaximumBatchRequests
    /// The longest answer line to one request, in bytes; a request whose answer would be
    /// longer gets a -32005 error instead.
    public var maximumAnswerBytes: Int = ServerConfiguration.defaultMaximumAnswerBytes
    /// The longest answer line to one batch, in bytes; once the answers of a batch reach it,
    /// its remaining requests are not run and each gets a -32005 error.
    public var maximumBatchAnswerBytes: Int = ServerConfiguration.defaultMaximumBatchAnswerBytes
    /// A connection that sends no complete line for this many seconds while it waits for no
    /// answer is closed; 0 never closes one.
    public var idleTimeoutSeconds: Int = ServerConfiguration.defaultIdleTimeoutSeconds
    /// The most connections open at once; one more gets a -32008 error line and is closed.
    public var maximumConnections: Int = ServerConfiguration.defaultMaximumConnections
    /// The most bytes of incomplete lines held for all connections together; the connection
    /// that would hold more gets a -32005 error and is closed.
    public var maximumBufferedBytes: Int = ServerConfiguration.defaultMaximumBufferedBytes
    /// The most bytes the cache of objects' wire forms holds (each entry counted with its
    /// bookkeeping): a `get` or `fetch` of an object in it is answered without encoding the
    /// object again. Past it, each new entry evicts others (objects not read lately first).
    /// 0 caches nothing.
    public var wireCacheBytes: Int = ServerConfiguration.defaultWireCacheBytes
    /// Over PostgreSQL: the bytes of memory the server's objects may take (a bounded cache;
    /// `docs/SCALING.md`). The server then does not load the database at start; it reads objects
    /// as they are asked for, keeps the latest within this budget (objects only: their wire forms
    /// are not cached, see ``StoreReader``), and runs every `fetch` as SQL. 0 (the default): the server holds
    /// every object in memory. A JSON store always holds every object (the value is ignored, with
    /// a warning).
    public var cacheBytes: Int = 0
    /// With ``cacheBytes``: the most connections the server opens to the database for reads
    /// (cache misses and fetches). A quarter of them (at least one) read misses at once; misses
    /// that come meanwhile wait and are read together, one statement per table for all of them.
    /// More connections run more fetches at once and cost the database a backend each. Each I/O
    /// thread opens as many again, as they are needed, for the fetches one statement answers and
    /// the misses of `get`s, which it runs on its event loop (``StoreWorker/submit(_:on:completion:)``).
    /// 0: ``defaultDatabaseReadsPerCore`` per core.
    public var databaseReads: Int = 0
    /// Connections for reads per core by default (``databaseReads``).
    public static let defaultDatabaseReadsPerCore = 4

    /// A request that takes at least this many milliseconds, from its line read to its answer
    /// made, is logged and kept in the slow log (the `slowlog` method); 0 keeps every request.
    public var slowRequestMilliseconds: Int = ServerConfiguration.defaultSlowRequestMilliseconds
    /// 100 ms.
    public static let defaultSlowRequestMilliseconds = 100

    // MARK: Live changes (`docs/PROTOCOL.md`, Live changes)

    /// The bytes of notifications one subscription may have waiting for its client (written,
    /// not yet read); past it the subscription gets a `resync` notification and ends.
    public var subscriptionBufferBytes: Int = ServerConfiguration.defaultSubscriptionBufferBytes
    /// The most subscriptions open on one connection; one more is refused (-32005).
    public var maximumSubscriptions: Int = ServerConfiguration.defaultMaximumSubscriptions
    /// The most commits the history keeps for `since` and `changes` (0: none).
    public var historyCommits: Int = ServerConfiguration.defaultHistoryCommits
    /// How long a commit stays in the history, in seconds (0: no limit by age).
    public var historySeconds: Int = ServerConfiguration.defaultHistorySeconds
    /// How long a read whose `after` names a commit this server has not applied yet waits for it
    /// (over a shared database; `docs/PROTOCOL.md`, Reading after a save), before it is answered
    /// with `not caught up` (-32010).
    public var readAfterWait: Duration = ServerConfiguration.defaultReadAfterWait
    /// 1 second.
    public static let defaultReadAfterWait = Duration.seconds(1)
    /// ``readAfterWait`` in whole milliseconds (a fraction is rounded down; a negative
    /// duration is 0, and one past `Int32.max` milliseconds, about 24 days, is that).
    public var readAfterWaitMilliseconds: Int {
        get { ServerConfiguration.wholeMilliseconds(readAfterWait) }
        set { readAfterWait = .milliseconds(newValue) }
    }

    /// `duration` in whole milliseconds, from 0 up to `Int32.max`: a duration any caller may
    /// set, made a number that waits and timers take without overflow.
    static func wholeMilliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let limit = Int64(Int32.max)
        guard seconds < limit / 1000 else { return Int(limit) }
        return Int(max(0, min(seconds * 1000 + attoseconds / 1_000_000_000_000_000, limit)))
    }
    /// 4 MiB.
    public static let defaultSubscriptionBufferBytes = 4 << 20
    /// 64.
    public static let defaultMaximumSubscriptions = 64
    /// 10,000 commits.
    public static let defaultHistoryCommits = 10_000
    /// 7 days (604,800 seconds).
    public static let defaultHistorySeconds = 7 * 24 * 3600

    /// The feed's limits from this configuration.
    var feedLimits: FeedLimits {
        FeedLimits(subscriptionBufferBytes: subscriptionBufferBytes, subscriptionsPerConnection: maximumSubscriptions,
                   historyCommits: historyCommits, predicateTimeLimit: requestTimeLimit,
                   historyAge: historySeconds > 0 ? TimeInterval(historySeconds) : nil)
    }

    /// The default batch limit: 256 requests.
    /// The size, in bytes, past which a JSON store's journal is checkpointed while the server
    /// runs (off the writer's path, from a published state); 0: only when the server stops.
    public var journalCheckpointBytes: Int = ServerConfiguration.defaultJournalCheckpointBytes
    /// 64 MiB.
    public static let defaultJournalCheckpointBytes = 64 << 20
    public static let defaultMaximumBatchRequests = 256
    /// The default answer limit: 32 MiB.
    public static let defaultMaximumAnswerBytes = 32 << 20
    /// The default batch answer limit: 64 MiB.
    public static let defaultMaximumBatchAnswerBytes = 64 << 20
    /// The default idle timeout: 300 seconds.
    public static let defaultIdleTimeoutSeconds = 300
    /// The default connection limit: 512.
    public static let defaultMaximumConnections = 512
    /// The default limit on bytes of incomplete lines: 256 MiB.
    public static let defaultMaximumBufferedBytes = 256 << 20
    /// The default size of the cache of wire forms: 64 MiB.
    public static let defaultWireCacheBytes = 64 << 20

    /// The default port.
    public static let defaultPort = 7878
    /// The default line limit: 16 MiB.
    public static let defaultMaximumLineLength = 16 << 20

    /// A configuration; every setting has a default.
    public init(host: String = "127.0.0.1", port: Int = ServerConfiguration.defaultPort, authToken: String? = nil,
                maximumLineLength: Int = ServerConfiguration.defaultMaximumLineLength, ioThreads: Int = 1,
                requestTimeLimit: Duration? = ServerConfiguration.defaultRequestTimeLimit) {
        self.host = host
        self.port = port
        self.authToken = authToken
        self.maximumLineLength = maximumLineLength
        self.ioThreads = ioThreads
        self.requestTimeLimit = requestTimeLimit
    }

    /// Whether `host` names only this machine.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
