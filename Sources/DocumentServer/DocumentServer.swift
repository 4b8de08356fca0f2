import Foundation
import GraphCore
import JSONAtomicStore
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
    public let configuration: ServerConfiguration
    private let shared: SharedState
    private let worker: StoreWorker
    private let logger: Logger
    /// The listening channel once bound; nil before and after.
    private let listener = NIOLockedValueBox<(channel: Channel?, shutdownRequested: Bool)>((nil, false))

    /// Opens the store (an atomic store loads whole here) and prepares the server.
    ///
    /// - Throws: ``DocumentServerError`` for a configuration that must not run (a
    ///   non-loopback address without a token); the store's own errors when it cannot be
    ///   opened (a damaged file, a model mismatch, a lock held by another process).
    public init(model: ObjectModel, storeURL: URL, storeType: String = JSONAtomicStore.storeType,
                configuration: ServerConfiguration = ServerConfiguration(), logger: Logger) throws {
        if !configuration.isLoopback && (configuration.authToken ?? "").isEmpty {
            throw DocumentServerError.tokenRequired(host: configuration.host)
        }
        if configuration.authToken == "" { throw DocumentServerError.emptyToken }
        JSONAtomicStore.register()
        self.configuration = configuration
        self.logger = logger
        let started = ContinuousClock.now
        let graph = try StoreGraph(model: model, storeType: storeType, storeURL: storeURL)
        let elapsed = ContinuousClock.now - started
        logger.info("store opened", metadata: [
            "store": "\(storeURL.path)", "type": "\(storeType)", "objects": "\(graph.objectCount)",
            "loadSeconds": "\(String(format: "%.3f", Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds)))",
            "storeUUID": "\(graph.store.identifier)",
        ])
        worker = StoreWorker(graph: graph)
        let hello = JSONValue.object([
            ("server", .string("docserver")), ("version", .string(DocumentServer.version)), ("protocol", .integer(1)),
            ("storeUUID", .string(graph.store.identifier)), ("modelHash", .string(model.versionHash)),
        ])
        let modelFile = try model.jsonRepresentation().withUnsafeBytes { try JSONValue.parse($0) }
        shared = SharedState(model: model, modelResult: Array(modelFile.jsonText.utf8), helloResult: Array(hello.jsonText.utf8),
                             authToken: configuration.authToken, worker: worker, logger: logger)
    }

    /// The server's version, in `hello`.
    public static let version = "0.5.0"

    /// Listens and serves until ``shutdown()``; `onListening` gets the bound address (the
    /// real port when the configuration asked for port 0). Returns once every connection
    /// has finished and the store is released.
    public func run(onListening: @Sendable (_ host: String, _ port: Int) -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.ioThreads))
        worker.start()
        do {
            try await serve(on: group, onListening: onListening)
        } catch {
            worker.stop()
            try? await group.shutdownGracefully()
            throw error
        }
        worker.stop()
        logger.info("stopped: every request received was answered, the store is released")
        try await group.shutdownGracefully()
    }

    /// Stops accepting connections and ends ``run(onListening:)`` once the requests already
    /// received are answered. Safe to call from any thread, more than once.
    public func shutdown() {
        let channel = listener.withLockedValue { state -> Channel? in
            state.shutdownRequested = true
            return state.channel
        }
        logger.info("shutting down")
        channel?.close(promise: nil)
    }

    private func serve(on group: MultiThreadedEventLoopGroup, onListening: (String, Int) -> Void) async throws {
        let maximumLineLength = configuration.maximumLineLength
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maximumLength: maximumLineLength)))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let alreadyStopping = listener.withLockedValue { state -> Bool in
            state.channel = server.channel
            return state.shutdownRequested
        }
        if alreadyStopping { server.channel.close(promise: nil) }
        let port = server.channel.localAddress?.port ?? configuration.port
        logger.info("listening", metadata: ["host": "\(configuration.host)", "port": "\(port)",
                                            "auth": "\(configuration.authToken == nil ? "none" : "token")"])
        onListening(configuration.host, port)

        let shared = self.shared
        let logger = self.logger
        try await withThrowingDiscardingTaskGroup { tasks in
            try await server.executeThenClose { connections in
                for try await connection in connections {
                    tasks.addTask { await Self.serve(connection, shared: shared, logger: logger) }
                }
            }
            // Accepting stopped: connections end after the request they are handling.
            tasks.cancelAll()
        }
        listener.withLockedValue { $0.channel = nil }
    }

    private static func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, shared: SharedState, logger: Logger) async {
        let peer = connection.channel.remoteAddress?.description ?? "unknown"
        logger.info("connection opened", metadata: ["peer": "\(peer)"])
        let session = ConnectionSession(shared: shared, peer: peer)
        let newline = UInt8(ascii: "\n")
        do {
            try await connection.executeThenClose { inbound, outbound in
                do {
                    for try await line in inbound {
                        switch await session.handle(line) {
                        case .answer(let bytes):
                            if let bytes { try await outbound.write(ByteBuffer(bytes: bytes + [newline])) }
                        case .answerAndClose(let bytes):
                            if let bytes { try await outbound.write(ByteBuffer(bytes: bytes + [newline])) }
                            return
                        }
                    }
                } catch let error as LineTooLongError {
                    logger.warning("line too long; closing the connection", metadata: ["peer": "\(peer)", "limit": "\(error.limit)"])
                    let answer = RPCResponse.encode(id: .null, .error(.tooLarge(limit: error.limit)))
                    try await outbound.write(ByteBuffer(bytes: answer + [newline]))
                }
            }
            logger.info("connection closed", metadata: ["peer": "\(peer)"])
        } catch {
            logger.info("connection ended", metadata: ["peer": "\(peer)", "reason": "\(error)"])
        }
    }
}

/// Why a server cannot start.
public enum DocumentServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Listening on an address other machines can reach needs a token.
    case tokenRequired(host: String)
    /// A token must not be empty.
    case emptyToken

    public var description: String {
        switch self {
        case .tokenRequired(let host):
            return "refusing to listen on \(host) without an auth token: other machines could read and change the store. Set --auth-token (or DOCSERVER_AUTH_TOKEN), or listen on 127.0.0.1"
        case .emptyToken:
            return "the auth token is empty"
        }
    }
}
