import DocumentProtocol
import Foundation
import GraphCore
import JSONAtomicStore
import JSONCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The network server: JSON-RPC 2.0 over newline-delimited TCP (`docs/PROTOCOL.md`), on
/// one object graph: one writer thread validates and commits saves with GraphCore, reader
/// threads answer from immutable states published after each commit.
///
/// It is a `Service` of swift-service-lifecycle: run it in a `ServiceGroup`, whose graceful
/// shutdown (SIGTERM, say) stops it the way `docs/PROTOCOL.md` (Shutdown) describes.
///
/// ```swift
/// let server = try DocumentServer(model: model, storeURL: url, configuration: .init(port: 0), logger: logger)
/// let group = ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// Graceful shutdown (or ``shutdown()``) stops accepting, carries out and answers every
/// request already received (saves become durable), writes nothing half, and releases the
/// store. Cancelling the task that runs the server stops it sooner: only the requests in
/// progress are finished and answered.
public final class DocumentServer: Service, Sendable {
    /// How the server listens.
    public let configuration: ServerConfiguration
    let shared: SharedState
    private let worker: StoreWorker
    private let logger: Logger
    /// Called by ``run()`` once the server listens.
    private let onListening: (@Sendable (_ host: String, _ port: Int) -> Void)?
    /// The listening channel, the open connections and how far the shutdown is.
    let lifecycle = NIOLockedValueBox(Lifecycle())
    /// Counts connections and bytes of incomplete lines against their limits.
    let gate: ConnectionGate
    /// The TLS context new connections use; nil: plain TCP.
    private let tlsSetup: TLSSetup?
    /// The figures `stats`, `/metrics` and `/readyz` tell.
    var status: ServerStatus { shared.status }

    /// Opens the store (an atomic store loads whole here) and prepares the server.
    ///
    /// - Throws: ``DocumentServerError`` for a configuration that must not run (a
    ///   non-loopback address without a token); the store's own errors when it cannot be
    ///   opened (a damaged file, a model mismatch, a lock held by another process).
    /// `storeOptions` go to the store (for a JSON store, ``JSONAtomicStore/fileModeOption``).
    ///
    /// `onListening`, when given, gets the bound address (the real port when the
    /// configuration asked for port 0) once ``run()`` listens.
    public init(model: ObjectModel, storeURL: URL, storeType: String = JSONAtomicStore.storeType,
                storeOptions: StoreOptions = StoreOptions(),
                configuration: ServerConfiguration = ServerConfiguration(), logger: Logger,
                onListening: (@Sendable (_ host: String, _ port: Int) -> Void)? = nil) throws {
        if !configuration.isLoopback && configuration.tls == nil && configuration.usersFile == nil && (configuration.authToken ?? "").isEmpty {
            guard configuration.insecure else { throw DocumentServerError.tokenRequired(host: configuration.host) }
            logger.warning("listening on \(configuration.host) without TLS and without users (--insecure): anyone who reaches this address can read and change the store, and the network path can read everything")
        }
        if !configuration.isLoopback && configuration.tls == nil && !configuration.insecure {
            logger.warning("listening on \(configuration.host) without TLS: secrets, tokens and objects cross the network in clear text (docs/SECURITY.md)")
        }
        tlsSetup = try configuration.tls.map { files throws(DocumentServerError) in try TLSSetup(files: files) }
        if let usersFile = configuration.usersFile, !PackageTrait.users.isEnabled {
            throw DocumentServerError.users(PackageTrait.users.missing("the users file (--users \(usersFile))"))
        }
        if let token = configuration.authToken, token.allSatisfy(\.isWhitespace) {
            throw token.isEmpty ? DocumentServerError.emptyToken : DocumentServerError.blankToken
        }
        JSONAtomicStore.register()  // the default store; the others are registered by their users (docserver)
        self.configuration = configuration
        self.logger = logger
        self.onListening = onListening
        let started = ContinuousClock.now
        let bounded = configuration.cacheBytes > 0
        let cache = WireObjectCache(byteLimit: configuration.wireCacheBytes)
        let isNew = storeURL.isFileURL && !FileManager.default.fileExists(atPath: storeURL.path)
        let graph = try StoreGraph(model: model, storeType: storeType, storeURL: storeURL, storeOptions: storeOptions, cache: cache,
                                   checkpointThresholdBytes: configuration.journalCheckpointBytes,
                                   historyRecords: configuration.historyCommits,
                                   cacheBytes: bounded ? configuration.cacheBytes : nil, logger: logger)
        if bounded && !graph.isCacheBounded {
            logger.warning("--cache-bytes applies to a database several servers share (postgresql://): this store's objects are all kept in memory")
        }
        graph.maximumAnswerBytes = configuration.maximumAnswerBytes
        if isNew, let atomic = graph.store as? AtomicStore {
            // Written now, so that the file and the store's UUID exist before the first save.
            do {
                try atomic.save()
            } catch {
                graph.close()
                throw error
            }
        }
        if let journaled = graph.journaled, journaled.recoveredTornBytes > 0 {
            logger.warning("the journal ended in a torn record (a save that was never acknowledged), cut off", metadata: [
                "journal": "\(journaled.journalPath)", "bytes": "\(journaled.recoveredTornBytes)",
            ])
        }
        let elapsed = ContinuousClock.now - started
        logger.info("store opened", metadata: [
            "store": "\((graph.store as? any SharedDatabaseStore)?.locationDescription ?? storeURL.path)", "type": "\(storeType)", "objects": "\(graph.objectCount)",
            "loadSeconds": "\(Self.seconds(elapsed))", "stateSeconds": "\(Self.seconds(graph.stateBuildTime))",
            "seq": "\(graph.state.sequence)", "storeUUID": "\(graph.store.identifier)",
            "cacheBytes": "\(graph.budget.map { "\($0.limit) for objects" } ?? "every object in memory")",
        ])
        worker = StoreWorker(graph: graph, requestTimeLimit: configuration.requestTimeLimit, readerThreads: configuration.readerThreads,
                             databaseReads: configuration.databaseReads,
                             feedLimits: configuration.feedLimits, history: graph.storedHistory(), writerNice: configuration.writerNice,
                             readAfterWait: configuration.readAfterWait)
        shared = try SharedState(model: model, graph: graph, worker: worker, cache: cache,
                                 configuration: configuration, logger: logger)
        gate = ConnectionGate(maximumConnections: configuration.maximumConnections,
                              maximumBufferedBytes: configuration.maximumBufferedBytes, logger: logger)
    }

    /// A duration as seconds with 3 decimals, for the log.
    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.3f", Double(duration.components.attoseconds) / 1e18 + Double(duration.components.seconds))
    }

    /// The server's version, in `hello`.
    public static let version = "0.7.0"

    /// Listens and serves until graceful shutdown (of the `ServiceGroup` that runs it) or
    /// ``shutdown()``; returns once every request received before is answered and the store
    /// is released. The `onListening` given to `init` gets the bound address.
    ///
    /// - Throws: when the server cannot listen (the port is in use, say).
    public func run() async throws {
        try await run(onListening: onListening ?? { _, _ in })
    }

    /// ``run()`` with its own `onListening`, which gets the bound address (the real port
    /// when the configuration asked for port 0).
    public func run(onListening: @Sendable (_ host: String, _ port: Int) -> Void) async throws {
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await serve(onListening: onListening)
            } onGracefulShutdown: { [self] in
                stop(.drain)
            }
        } onCancel: { [self] in
            stop(.hurry)
        }
    }

    private func serve(onListening: @Sendable (_ host: String, _ port: Int) -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.ioThreads))
        worker.start()
        let server: Channel
        do {
            server = try await bind(on: group)
        } catch {
            worker.stop()
            try? await group.shutdownGracefully()
            throw error
        }
        let port = server.localAddress?.port ?? configuration.port
        logger.info("listening", metadata: ["host": "\(configuration.host)", "port": "\(port)",
                                            "auth": "\(configuration.usersFile != nil ? "users" : configuration.authToken == nil ? "none" : "token")",
                                            "tls": "\(tlsSetup == nil ? "off" : "on")"])
        onListening(configuration.host, port)

        // Until stop(_:) closes the listening channel.
        try? await server.closeFuture.get()
        // Every connection finishes the lines it received (docs/PROTOCOL.md, Shutdown) and
        // closes; a connection accepted from now on is closed at once.
        let (open, phase) = lifecycle.withLockedValue { state in
            state.connectionsStopping = true
            return (Array(state.open.values), state.phase ?? .drain)
        }
        for connection in open { connection.pipeline.fireUserInboundEventTriggered(phase) }
        for connection in open { try? await connection.closeFuture.get() }
        // Nothing can submit a job any more; jobs still queued (from a connection that was
        // closed while its request ran) finish, so that saves become durable.
        worker.stop()
        logger.info("stopped: the connections are closed, the store is released")
        // A later stop has nothing to close (the loops are about to be gone).
        lifecycle.withLockedValue { $0.listener = nil }
        try await group.shutdownGracefully()
    }

    /// Reads the TLS certificate and key and the users file again (SIGHUP): connections
    /// accepted afterwards use the new certificate; every connection's next request uses the
    /// users' new grants (a user no longer in the file is closed). A file that cannot be used
    /// is logged and the old one kept. Returns whether everything was reloaded.
    @discardableResult
    public func reload() -> Bool {
        var reloaded = true
        if let tlsSetup {
            do {
                try tlsSetup.reload()
                logger.notice("reloaded the TLS certificate and key", metadata: ["cert": "\(tlsSetup.files.certificatePath)"])
            } catch {
                reloaded = false
                logger.error("kept the old TLS certificate and key: \(error.description)")
            }
        }
        if shared.access.usersPath != nil {
            do {
                try shared.access.reload()
                logger.notice("reloaded the users file", metadata: ["users": "\(shared.access.userCount)"])
            } catch {
                reloaded = false
                logger.error("kept the old users: \(error.description)")
            }
        }
        return reloaded
    }

    /// Stops accepting connections and ends ``run()`` once every request already received
    /// is answered, as the graceful shutdown of its `ServiceGroup` does: for code that runs
    /// the server without a group (tests). Safe to call from any thread, more than once.
    public func shutdown() {
        stop(.drain)
    }

    /// Closes the listening channel; tells the connections when they were told before.
    private func stop(_ phase: ConnectionHandler.Shutdown) {
        let (listener, told) = lifecycle.withLockedValue { state -> (Channel?, [Channel]) in
            guard state.phase.map({ $0 < phase }) ?? true else { return (nil, []) }
            state.phase = phase
            return (state.listener, state.connectionsStopping ? Array(state.open.values) : [])
        }
        shared.status.stopping.store(true, ordering: .relaxed)
        logger.info(phase == .drain ? "shutting down" : "shutting down now: requests not started are dropped")
        listener?.close(promise: nil)
        for connection in told { connection.pipeline.fireUserInboundEventTriggered(phase) }
    }

    private func bind(on group: MultiThreadedEventLoopGroup) async throws -> Channel {
        let maximumLineLength = configuration.maximumLineLength
        let shared = self.shared
        let logger = self.logger
        let lifecycle = self.lifecycle
        let gate = self.gate
        let reserve = DescriptorReserve()
        let tlsSetup: TLSSetup? = self.tlsSetup
        let idleTimeout = IdleTimeout.amount(seconds: configuration.idleTimeoutSeconds)
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                // Out of file descriptors, accept fails and would be retried at once, forever.
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptFailureHandler(reserve: reserve, logger: logger))
                }
            }
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.autoRead, value: true)
            .childChannelInitializer { channel in
                if reserve.takeReleased() {
                    // Accepted with the descriptor held in reserve: refuse it, then take the reserve back.
                    channel.closeFuture.whenComplete { _ in reserve.restore() }
                    ClosingAnswer.send(RPCResponse.encode(id: .null, .error(.serverBusy(reason: "the server is out of file descriptors"))),
                                       on: channel, grace: .zero)
                    return channel.eventLoop.makeSucceededVoidFuture()
                }
                guard gate.admitConnection() else {
                    ClosingAnswer.send(RPCResponse.encode(id: .null, .error(.serverBusy(limit: gate.maximumConnections))),
                                       on: channel, grace: .milliseconds(500))
                    return channel.eventLoop.makeSucceededVoidFuture()
                }
                guard let connectionLogger = Self.enlist(channel, shared: shared, gate: gate, lifecycle: lifecycle, logger: logger) else {
                    return channel.close()  // accepted while the server shuts down
                }
                return channel.eventLoop.makeCompletedFuture {
                    let session = ConnectionSession(shared: shared, logger: connectionLogger)
                    session.address = channel.remoteAddress?.ipAddress ?? "unknown"
                    if let tlsSetup { try tlsSetup.addHandler(to: channel.pipeline.syncOperations) }
                    try channel.pipeline.syncOperations.addHandlers(
                        PartialLineMeter(gate: gate, logger: connectionLogger),
                        ByteToMessageHandler(LineFrameDecoder(maximumLength: maximumLineLength)),
                        ConnectionHandler(session: session, worker: shared.worker, idleTimeout: idleTimeout, logger: connectionLogger))
                }
            }
            .bind(host: configuration.host, port: configuration.port).get()
        let alreadyStopping = lifecycle.withLockedValue { state -> Bool in
            state.listener = server
            return state.phase != nil
        }
        if alreadyStopping { server.close(promise: nil) }
        return server
    }
}

extension DocumentServer {
    /// Counts an admitted connection (the gate took its place) among the open ones: told of the
    /// shutdown, counted in `stats`, its place given back and its end logged when it closes.
    /// Returns its logger (with its `peer`); nil when the server is stopping, its place given
    /// back: the caller closes it. Shared by the TCP port and `/rpc`'s WebSockets.
    static func enlist(_ channel: Channel, shared: SharedState, gate: ConnectionGate, lifecycle: NIOLockedValueBox<Lifecycle>,
                       logger: Logger) -> Logger? {
        let id = ObjectIdentifier(channel)
        let admitted = lifecycle.withLockedValue { state -> Bool in
            guard !state.connectionsStopping else { return false }
            state.open[id] = channel
            return true
        }
        guard admitted else {
            gate.connectionClosed()
            return nil
        }
        var connectionLogger = logger
        connectionLogger[metadataKey: "peer"] = "\(channel.remoteAddress?.description ?? "unknown")"
        connectionLogger.info("connection opened")
        shared.status.connections.add(1, ordering: .relaxed)
        channel.closeFuture.whenComplete { [connectionLogger] _ in
            shared.status.connections.subtract(1, ordering: .relaxed)
            lifecycle.withLockedValue { $0.open[id] = nil }
            gate.connectionClosed()
            connectionLogger.info("connection closed")
        }
        return connectionLogger
    }
}

/// What ``DocumentServer`` tracks to stop: guarded by its lock.
struct Lifecycle {
    /// The listening channel once bound; nil before and after.
    var listener: Channel?
    /// The open connections, told to stop at shutdown.
    var open: [ObjectIdentifier: Channel] = [:]
    /// Nil until the server is asked to stop; then how.
    var phase: ConnectionHandler.Shutdown?
    /// Whether the connections were told to stop (and new ones are refused).
    var connectionsStopping = false
}

/// Why a server cannot start.
public enum DocumentServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Listening on an address other machines can reach needs a token.
    case tokenRequired(host: String)
    /// A token must not be empty.
    case emptyToken
    /// The TLS certificate, key or client authorities cannot be used.
    case tls(String)
    /// The users file cannot be used.
    case users(String)
    /// A token must not be only white space.
    case blankToken

    /// What is wrong and what to do.
    public var description: String {
        switch self {
        case .tokenRequired(let host):
            return "refusing to listen on \(host) without TLS and without users or an auth token: other machines could read and change the store. Set --tls-cert and --tls-key, --users or --auth-token (or DOCSERVER_AUTH_TOKEN), listen on 127.0.0.1, or accept the risk with --insecure"
        case .tls(let reason), .users(let reason):
            return reason
        case .emptyToken:
            return "the auth token is empty"
        case .blankToken:
            return "the auth token is only white space (a quoting mistake?): set a real token"
        }
    }
}
