import DocumentProtocol
import Foundation
import GraphCore
import JSONAtomicStore
import JSONCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The network server: JSON-RPC 2.0 over newline-delimited TCP (`docs/PROTOCOL.md`), on
/// one object graph held by a GraphCore context on a store thread of its own.
///
/// ```swift
/// let server = try DocumentServer(model: model, storeURL: url, configuration: .init(port: 0), logger: logger)
/// try await server.run { host, port in print("listening on \(host):\(port)") }
/// ```
///
/// ``shutdown()`` (from a signal handler, say) stops accepting, lets every request already
/// received finish (saves included), writes nothing half, and releases the store.
public final class DocumentServer: Sendable {
    /// How the server listens.
    public let configuration: ServerConfiguration
    private let shared: SharedState
    private let worker: StoreWorker
    private let logger: Logger
    /// The listening channel once bound; nil before and after.
    private let listener = NIOLockedValueBox<(channel: Channel?, shutdownRequested: Bool)>((nil, false))
    /// The open connections, closed at shutdown.
    private let connections = NIOLockedValueBox<[ObjectIdentifier: Channel]>([:])
    /// Counts connections and bytes of incomplete lines against their limits.
    private let gate: ConnectionGate

    /// Opens the store (an atomic store loads whole here) and prepares the server.
    ///
    /// - Throws: ``DocumentServerError`` for a configuration that must not run (a
    ///   non-loopback address without a token); the store's own errors when it cannot be
    ///   opened (a damaged file, a model mismatch, a lock held by another process).
    /// `storeOptions` go to the store (for a JSON store, ``JSONAtomicStore/fileModeOption``).
    public init(model: ObjectModel, storeURL: URL, storeType: String = JSONAtomicStore.storeType,
                storeOptions: StoreOptions = StoreOptions(),
                configuration: ServerConfiguration = ServerConfiguration(), logger: Logger) throws {
        if !configuration.isLoopback && (configuration.authToken ?? "").isEmpty {
            throw DocumentServerError.tokenRequired(host: configuration.host)
        }
        if let token = configuration.authToken, token.allSatisfy(\.isWhitespace) {
            throw token.isEmpty ? DocumentServerError.emptyToken : DocumentServerError.blankToken
        }
        JSONAtomicStore.register()
        self.configuration = configuration
        self.logger = logger
        let started = ContinuousClock.now
        let cache = WireObjectCache()
        let isNew = !FileManager.default.fileExists(atPath: storeURL.path)
        let graph = try StoreGraph(model: model, storeType: storeType, storeURL: storeURL, storeOptions: storeOptions, cache: cache)
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
        let elapsed = ContinuousClock.now - started
        logger.info("store opened", metadata: [
            "store": "\(storeURL.path)", "type": "\(storeType)", "objects": "\(graph.objectCount)",
            "loadSeconds": "\(String(format: "%.3f", Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds)))",
            "storeUUID": "\(graph.store.identifier)",
        ])
        worker = StoreWorker(graph: graph, requestTimeLimit: configuration.requestTimeLimit)
        shared = try SharedState(model: model, graph: graph, worker: worker, cache: cache,
                                 configuration: configuration, logger: logger)
        gate = ConnectionGate(maximumConnections: configuration.maximumConnections,
                              maximumBufferedBytes: configuration.maximumBufferedBytes, logger: logger)
    }

    /// The server's version, in `hello`.
    public static let version = "0.6.0"

    /// Listens and serves until ``shutdown()``; `onListening` gets the bound address (the
    /// real port when the configuration asked for port 0). Returns once every request
    /// received before the shutdown is answered and the store is released.
    public func run(onListening: @Sendable (_ host: String, _ port: Int) -> Void) async throws {
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
                                            "auth": "\(configuration.authToken == nil ? "none" : "token")"])
        onListening(configuration.host, port)

        // Until shutdown() closes the listening channel.
        try? await server.closeFuture.get()
        // Requests already handed to the store thread finish (saves become durable and are
        // answered); then the connections close.
        worker.stop()
        let open = connections.withLockedValue { $0.values }
        for connection in open {
            connection.eventLoop.execute { connection.close(promise: nil) }
        }
        for connection in open { try? await connection.closeFuture.get() }
        logger.info("stopped: every request in progress was answered, the store is released")
        // A later shutdown() has nothing to close (the loops are about to be gone).
        listener.withLockedValue { $0.channel = nil }
        try await group.shutdownGracefully()
    }

    /// Stops accepting connections and ends ``run(onListening:)`` once the requests in
    /// progress are answered. Safe to call from any thread, more than once.
    public func shutdown() {
        let channel = listener.withLockedValue { state -> Channel? in
            state.shutdownRequested = true
            return state.channel
        }
        logger.info("shutting down")
        channel?.close(promise: nil)
    }

    private func bind(on group: MultiThreadedEventLoopGroup) async throws -> Channel {
        let maximumLineLength = configuration.maximumLineLength
        let shared = self.shared
        let logger = self.logger
        let connections = self.connections
        let gate = self.gate
        let reserve = DescriptorReserve()
        let idleTimeout = configuration.idleTimeoutSeconds > 0 ? TimeAmount.seconds(Int64(configuration.idleTimeoutSeconds)) : nil
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
                let peer = channel.remoteAddress?.description ?? "unknown"
                var connectionLogger = logger
                connectionLogger[metadataKey: "peer"] = "\(peer)"
                let id = ObjectIdentifier(channel)
                connections.withLockedValue { $0[id] = channel }
                connectionLogger.info("connection opened")
                channel.closeFuture.whenComplete { [connectionLogger] _ in
                    connections.withLockedValue { $0[id] = nil }
                    gate.connectionClosed()
                    connectionLogger.info("connection closed")
                }
                return channel.eventLoop.makeCompletedFuture {
                    let session = ConnectionSession(shared: shared, logger: connectionLogger)
                    try channel.pipeline.syncOperations.addHandlers(
                        PartialLineMeter(gate: gate, logger: connectionLogger),
                        ByteToMessageHandler(LineFrameDecoder(maximumLength: maximumLineLength)),
                        ConnectionHandler(session: session, worker: shared.worker, idleTimeout: idleTimeout, logger: connectionLogger))
                }
            }
            .bind(host: configuration.host, port: configuration.port).get()
        let alreadyStopping = listener.withLockedValue { state -> Bool in
            state.channel = server
            return state.shutdownRequested
        }
        if alreadyStopping { server.close(promise: nil) }
        return server
    }
}

/// Why a server cannot start.
public enum DocumentServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Listening on an address other machines can reach needs a token.
    case tokenRequired(host: String)
    /// A token must not be empty.
    case emptyToken
    /// A token must not be only white space.
    case blankToken

    /// What is wrong and what to do.
    public var description: String {
        switch self {
        case .tokenRequired(let host):
            return "refusing to listen on \(host) without an auth token: other machines could read and change the store. Set --auth-token (or DOCSERVER_AUTH_TOKEN), or listen on 127.0.0.1"
        case .emptyToken:
            return "the auth token is empty"
        case .blankToken:
            return "the auth token is only white space (a quoting mistake?): set a real token"
        }
    }
}
