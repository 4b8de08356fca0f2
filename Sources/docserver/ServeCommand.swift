import ArgumentParser
import DocumentServer
import Foundation
import GraphCore
import JSONAtomicStore
import Logging
import ServiceLifecycle
import UnixSignals

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a store over the line protocol until SIGINT or SIGTERM.",
        discussion: """
            With no options: the sample model (artists, albums, songs, tags) and ./data/store.json (created when \
            missing), on 127.0.0.1:7878. When ready, prints one line "listening on HOST:PORT" on standard output; \
            logs go to standard error. SIGINT or SIGTERM stops accepting connections, carries out and answers every \
            request already received (saves become durable), releases the store lock and exits 0; lines that \
            arrive after the signal are not carried out. After \(Int(Self.shutdownGrace.components.seconds)) seconds \
            only the requests in progress are still finished and answered (docs/PROTOCOL.md, Shutdown).

            Environment: DOCSERVER_HOST, DOCSERVER_PORT, DOCSERVER_AUTH_TOKEN, DOCSERVER_MODEL, DOCSERVER_STORE and \
            DOCSERVER_LOG_LEVEL stand for the options of the same names, and every limit option has its variable: \
            DOCSERVER_ and the option's name in capitals, - as _ (DOCSERVER_MAX_LINE_BYTES for --max-line-bytes; each \
            limit's help names it). An option wins over its variable. The limits in effect are logged at start-up.
            """
    )

    @Option(help: ArgumentHelp("The model: a JSON model file (docs/MODEL.md) or an Xcode .xcdatamodeld / .xcdatamodel (its current version); the built-in sample model when omitted.", valueName: "path"))
    var model: String?

    @Option(help: ArgumentHelp("The store file (docs/FILE_FORMAT.md), created when missing; or a PostgreSQL database, postgresql://user:password@host:port/database, which several servers may serve at once (docs/POSTGRESQL.md; its schema is created when missing). [default: ./data/store.json]", valueName: "file|url"))
    var store: String?

    @Flag(help: "Migrate a store written with an earlier model version (--from-model) before serving it; without it such a store is refused with what would change (docserver migrate --help).")
    var migrate = false

    @Option(name: .customLong("from-model"), help: ArgumentHelp("An earlier version of the model, oldest first (repeat it): a store written with one is migrated with --migrate, else refused.", valueName: "file"))
    var fromModels: [String] = []

    @Flag(help: "Create the store and lock files readable by the group (0640); without it, by the owner only (0600). An existing store file keeps its mode.")
    var shareWithGroup = false

    @Option(help: ArgumentHelp("The address to listen on; other than loopback needs --tls-cert, --users or --auth-token (or --insecure). [default: 127.0.0.1]", valueName: "address"))
    var host: String?

    @Option(help: ArgumentHelp("The TCP port; 0 picks a free one (printed). [default: 7878]", valueName: "port"))
    var port: Int?

    @Option(help: ArgumentHelp("A token every connection must send in hello before anything else.", valueName: "token"))
    var authToken: String?

    @OptionGroup(title: "TLS and users (docs/SECURITY.md)")
    var access: UserAccessOptions

    @Option(help: ArgumentHelp("Also serve HTTP on this port, on the same address: GET /healthz, /readyz and /metrics (Prometheus) (docs/OPERATIONS.md); 0 picks a free one (printed after the listening line as 'http listening on HOST:PORT'). Off unless given. [env: DOCSERVER_HTTP_PORT]", valueName: "port"))
    var httpPort: Int?

    // The web page and /rpc on the HTTP port (docs/PROTOCOL.md, "WebSocket and POST").
    @Option(name: .customLong("http-allow-origin"), help: ArgumentHelp("A web origin (scheme://host[:port], or * for any) whose pages may use /rpc on the HTTP port; repeat for more. Requests without an Origin header (clients, curl) and the port's own page (reached by an IP address or localhost) always may; other browsers' pages get 403.", valueName: "origin"))
    var httpAllowOrigin: [String] = []

    @Option(help: ServeCommand.limitHelp("Log a request that takes at least this many milliseconds and keep it in the slow log (the slowlog method, the last 128); 0 keeps every request. [default: \(ServerConfiguration.defaultSlowRequestMilliseconds)]", option: "slow-request-ms", valueName: "milliseconds"))
    var slowRequestMs: Int?

    @Option(help: ServeCommand.limitHelp("The longest message line accepted, in bytes; a longer one gets 'too large' (-32005) and the connection is closed. [default: \(ServerConfiguration.defaultMaximumLineLength) (16 MiB)]", option: "max-line-bytes", valueName: "bytes"))
    var maxLineBytes: Int?

    @Option(help: ArgumentHelp("Threads for network I/O. [default: 1 on machines with 2 cores or fewer (the store has a thread of its own), else up to 4]", valueName: "count"))
    var ioThreads: Int?

    @Option(help: ArgumentHelp("Threads that answer fetches (and gets of more than 64 IDs) from the latest committed state, beside the one writer thread. [default: one per core]", valueName: "count"))
    var readerThreads: Int?

    @Option(help: ArgumentHelp("How many nice steps (0-19) the writer thread (validation, commit, checkpoints) runs below the threads that read: when every core is busy, fetches slow down less while saves run, and saves get the CPU the reads leave; 0 gives saves the readers' priority (more saves/s whenever every core is busy, slower reads). [default: \(ServerConfiguration.defaultWriterNice)]", valueName: "steps"))
    var writerNice: Int?

    @Option(help: ArgumentHelp("Checkpoint the store (a new snapshot file, an empty journal) once its journal passes this many bytes; it is written from the committed state while saves go on. 0: only when the server stops. [default: 67108864 (64 MiB)]", valueName: "bytes"))
    var journalCheckpointBytes: Int?

    /// One network thread on small machines: with the store thread and a client on the same
    /// 2 cores, a second one costs more in preemption than it gives (p99 of get 2.1 -> 1.4 ms).
    static var defaultIOThreads: Int {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        return cores <= 2 ? 1 : min(cores, 4)
    }

    // Limits on requests, answers and resources (docs/PROTOCOL.md, Limits).

    @Option(help: ServeCommand.limitHelp("The most requests in one batch; a longer batch is refused with 'too large' (-32005). [default: \(ServerConfiguration.defaultMaximumBatchRequests)]", option: "max-batch-requests", valueName: "count"))
    var maxBatchRequests: Int?

    @Option(help: ServeCommand.limitHelp("The longest answer to one request, in bytes; a request whose answer would be longer gets 'too large' (-32005) instead. [default: \(ServerConfiguration.defaultMaximumAnswerBytes) (32 MiB)]", option: "max-answer-bytes", valueName: "bytes"))
    var maxAnswerBytes: Int?

    @Option(help: ServeCommand.limitHelp("The longest answer to one batch, in bytes; the requests after the limit is reached are not run and get 'too large' (-32005). [default: \(ServerConfiguration.defaultMaximumBatchAnswerBytes) (64 MiB)]", option: "max-batch-answer-bytes", valueName: "bytes"))
    var maxBatchAnswerBytes: Int?

    @Option(help: ServeCommand.limitHelp("Close a connection that sends no complete line for this many seconds while it waits for no answer; 0: never. [default: \(ServerConfiguration.defaultIdleTimeoutSeconds)]", option: "idle-timeout", valueName: "seconds"))
    var idleTimeout: Int?

    @Option(help: ServeCommand.limitHelp("The most connections open at once; one more gets 'server busy' (-32008) and is closed. [default: \(ServerConfiguration.defaultMaximumConnections)]", option: "max-connections", valueName: "count"))
    var maxConnections: Int?

    @Option(help: ServeCommand.limitHelp("The most bytes of incomplete lines held for all connections together; the connection that would hold more gets 'too large' (-32005) and is closed. [default: \(ServerConfiguration.defaultMaximumBufferedBytes) (256 MiB)]", option: "max-buffered-bytes", valueName: "bytes"))
    var maxBufferedBytes: Int?

    @Option(help: ServeCommand.limitHelp("The most bytes the cache of objects' wire forms holds (none with --cache-bytes); a get or fetch of a cached object is answered without encoding it again. Past it each new entry evicts others, objects not read lately first; 0 caches nothing. [default: \(ServerConfiguration.defaultWireCacheBytes) (64 MiB)]", option: "wire-cache-bytes", valueName: "bytes"))
    var wireCacheBytes: Int?

    @Option(help: ServeCommand.limitHelp("Over PostgreSQL: the bytes of memory the server's objects may take. The server then loads nothing at start, reads objects as they are asked for, keeps the latest within this budget, and runs every fetch as SQL (docs/SCALING.md). 0 keeps every object in memory. [default: 0]", option: "cache-bytes", valueName: "bytes"))
    var cacheBytes: Int?

    @Option(help: ServeCommand.limitHelp("With --cache-bytes: the most connections to the database for reads (misses and fetches) by the reader threads; a quarter of them read misses, and the misses that come while they are busy are read together in one statement. Each I/O thread opens as many again, as they are needed, for the fetches one statement answers and the gets' misses, which it runs itself. 0: \(ServerConfiguration.defaultDatabaseReadsPerCore) per core. [default: 0]", option: "database-reads", valueName: "count"))
    var databaseReads: Int?

    // Live changes (docs/PROTOCOL.md, Live changes).

    @Option(help: ServeCommand.limitHelp("The bytes of notifications one subscription may have waiting for a client that does not read them; past it the subscription gets a 'resync' notification and ends (the connection stays open). [default: \(ServerConfiguration.defaultSubscriptionBufferBytes) (4 MiB)]", option: "subscription-buffer-bytes", valueName: "bytes"))
    var subscriptionBufferBytes: Int?

    @Option(help: ServeCommand.limitHelp("The most subscriptions open on one connection; one more is refused with 'too large' (-32005). [default: \(ServerConfiguration.defaultMaximumSubscriptions)]", option: "max-subscriptions", valueName: "count"))
    var maxSubscriptions: Int?

    @Option(help: ServeCommand.limitHelp("The most commits kept as history for subscribe's and changes' 'since' (kept across restarts: checkpoints keep them in the store's history file); an older 'since' gets 'history expired' (-32009). [default: \(ServerConfiguration.defaultHistoryCommits)]", option: "history-commits", valueName: "count"))
    var historyCommits: Int?

    @Option(help: ServeCommand.limitHelp("How long a commit stays in the history, in seconds; 0: no limit by age (only --history-commits). [default: \(ServerConfiguration.defaultHistorySeconds) (7 days)]", option: "history-seconds", valueName: "seconds"))
    var historySeconds: Int?

    @Option(help: ServeCommand.limitHelp("How long a get or fetch whose 'after' names a commit this server has not applied yet waits for it, in milliseconds (over a shared PostgreSQL database: another server's save), before it fails with error -32010 (not caught up); 0 takes the commits once, without waiting for a busy writer. [default: 1000]", option: "read-after-wait-ms", valueName: "milliseconds"))
    var readAfterWaitMs: Int?

    @Option(help: ServeCommand.limitHelp("How long one fetch may run, in seconds, before it fails with error -32007 (time limit exceeded) and frees the store (and how long a live query may take to judge one commit before its subscription ends with 'resync'); 0 turns the limit off. [default: 10]", option: "request-time-limit", valueName: "seconds"))
    var requestTimeLimit: Double?

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical. [default: info]", valueName: "level"))
    var logLevel: String?

    @Flag(help: "Stop as on SIGTERM when standard input reaches its end: a program that starts the server with a pipe on its standard input, and keeps the pipe's other end open, gets a server that stops when the program exits, however it exits.")
    var stopWhenStdinCloses = false

    /// How long a graceful shutdown may take before the lines received but not started are
    /// dropped: under the 10 seconds after which `docker stop` kills.
    static let shutdownGrace = Duration.seconds(5)

    func validate() throws {
        if let port = port ?? Environment.int("DOCSERVER_PORT"), !(0...65535).contains(port) {
            throw ValidationError("--port must be from 0 to 65535, not \(port)")
        }
        if let httpPort = httpPort ?? Environment.int("DOCSERVER_HTTP_PORT"), !(0...65535).contains(httpPort) {
            throw ValidationError("--http-port must be from 0 to 65535, not \(httpPort)")
        }
        if httpPort == nil, let text = Environment.string("DOCSERVER_HTTP_PORT"), Int(text) == nil {
            throw ValidationError("DOCSERVER_HTTP_PORT must be a port number, not '\(text)'")
        }
        if let ioThreads, !(1...64).contains(ioThreads) { throw ValidationError("--io-threads must be from 1 to 64, not \(ioThreads)") }
        if let readerThreads, !(1...64).contains(readerThreads) { throw ValidationError("--reader-threads must be from 1 to 64, not \(readerThreads)") }
        if let writerNice, !(0...19).contains(writerNice) { throw ValidationError("--writer-nice must be from 0 to 19, not \(writerNice)") }
        if let journalCheckpointBytes, journalCheckpointBytes < 0 {
            throw ValidationError("--journal-checkpoint-bytes must be 0 (only at shutdown) or more, not \(journalCheckpointBytes)")
        }
        try validateLimits()
        if !PackageTrait.postgreSQL.isEnabled, StoreLocation.namesDatabase(store ?? Environment.string("DOCSERVER_STORE") ?? "") {
            throw ValidationError(PackageTrait.postgreSQL.missing("a postgresql:// store (--store or DOCSERVER_STORE)"))
        }
        if let level = logLevel ?? Environment.string("DOCSERVER_LOG_LEVEL"), Logger.Level(rawValue: level) == nil {
            throw ValidationError("unknown log level '\(level)' (trace, debug, info, notice, warning, error, critical)")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel ?? Environment.string("DOCSERVER_LOG_LEVEL") ?? "info") ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "docserver")
        var configuration = ServerConfiguration(
            host: host ?? Environment.string("DOCSERVER_HOST") ?? "127.0.0.1",
            port: port ?? Environment.int("DOCSERVER_PORT") ?? ServerConfiguration.defaultPort,
            authToken: authToken ?? Environment.string("DOCSERVER_AUTH_TOKEN"),
            ioThreads: ioThreads ?? Self.defaultIOThreads)
        configuration.readerThreads = readerThreads
        if let writerNice { configuration.writerNice = writerNice }
        if let journalCheckpointBytes { configuration.journalCheckpointBytes = journalCheckpointBytes }
        access.apply(to: &configuration)
        try applyLimits(to: &configuration)
        logger.info("build", metadata: ["version": "\(DocumentServer.version)", "traits": "\(PackageTrait.summary)"])
        logger.info("limits", metadata: Self.limitsMetadata(configuration, limits))
        let storePath = store ?? Environment.string("DOCSERVER_STORE") ?? "data/store.json"
        // The HTTP port listens before the store opens: /readyz says 503 while a large store loads.
        let http: (port: HTTPPort, bound: Int)?
        do {
            http = try await startHTTPPort(host: configuration.host, idleTimeout: configuration.idleTimeoutSeconds, logger: logger)
        } catch {
            logger.critical("cannot listen for HTTP on \(configuration.host):\(httpPort ?? Environment.int("DOCSERVER_HTTP_PORT") ?? 0): \(error)")
            throw ExitCode(2)
        }
        let server: DocumentServer
        do {
            let location = try StoreLocation(storePath)
            let model = try SampleModel.load(path: model ?? Environment.string("DOCSERVER_MODEL"))
            if location.isDatabase {
                if migrate || !fromModels.isEmpty { throw ValidationError("--migrate and --from-model work on store files only, not on a PostgreSQL database") }
            } else {
                if store == nil && Environment.string("DOCSERVER_STORE") == nil {
                    try FileManager.default.createDirectory(at: location.url.deletingLastPathComponent(), withIntermediateDirectories: true)
                }
                if let report = try MigrateCommand.prepareToServe(store: storePath, model: self.model ?? Environment.string("DOCSERVER_MODEL"),
                                                                  fromModels: fromModels, migrate: migrate) {
                    logger.notice("migrated store \(storePath):\n\(report)")
                }
            }
            let storeOptions = StoreOptions(values: shareWithGroup ? [JSONAtomicStore.fileModeOption: "640"] : [:])
            server = try DocumentServer(model: model, storeURL: location.url, storeType: location.storeType, storeOptions: storeOptions,
                                        configuration: configuration, logger: logger) { host, port in
                // Unbuffered: whoever started the server waits for this line on a pipe.
                let httpLine = http.map { "http listening on \(host):\($0.bound)\n" } ?? ""
                FileHandle.standardOutput.write(Data("listening on \(host):\(port)\n\(httpLine)".utf8))
            }
        } catch {
            logger.critical("cannot start: \(error)")
            await http?.port.close()
            throw ExitCode(2)
        }
        http?.port.attach(server)
        // SIGTERM or SIGINT: graceful shutdown; past the grace the group cancels the server,
        // which then finishes only the requests in progress.
        // The server shuts down before the HTTP port (the group stops services last first):
        // meanwhile /readyz answers 503.
        var services = [ServiceGroupConfiguration.ServiceConfiguration(service: SignalLogService(logger: logger))]
        if let http { services.append(.init(service: http.port)) }
        services.append(.init(service: ReloadSignalService(server: server, logger: logger)))
        services.append(.init(service: server))
        if stopWhenStdinCloses {
            // Last: shut down first, and its end shuts the group down gracefully.
            services.append(.init(service: StandardInputWatch(logger: logger), successTerminationBehavior: .gracefullyShutdownGroup))
        }
        var lifecycle = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        lifecycle.maximumGracefulShutdownDuration = Self.shutdownGrace
        do {
            try await ServiceGroup(configuration: lifecycle).run()
        } catch {
            logger.critical("cannot listen on \(configuration.host):\(configuration.port): \(error)")
            throw ExitCode(2)
        }
    }
}

extension ServeCommand {
    /// With `--http-port` (or its variable): bootstraps the metrics and starts the HTTP port, whose
    /// connections idle for `idleTimeout` seconds (`--idle-timeout`), at most 30, are closed.
    func startHTTPPort(host: String, idleTimeout: Int, logger: Logger) async throws -> (port: HTTPPort, bound: Int)? {
        guard let port = httpPort ?? Environment.int("DOCSERVER_HTTP_PORT") else { return nil }
        var configuration = HTTPPortConfiguration(host: host, port: port)
        if (1..<configuration.idleTimeoutSeconds).contains(idleTimeout) { configuration.idleTimeoutSeconds = idleTimeout }
        configuration.allowedOrigins = httpAllowOrigin
        let http = HTTPPort(configuration: configuration, export: PrometheusExport.bootstrap(), logger: logger)
        do {
            return (http, try await http.start())
        } catch {
            await http.close()
            throw error
        }
    }
}

/// Reads settings from the environment.
enum Environment {
    static func string(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    static func int(_ name: String) -> Int? { string(name).flatMap { Int($0) } }
}
