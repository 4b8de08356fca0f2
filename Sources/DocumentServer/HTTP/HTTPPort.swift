import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// How the HTTP port listens and what it accepts.
public struct HTTPPortConfiguration: Sendable {
    /// The address: the line-protocol port's (`--host`).
    public var host: String
    /// The port; 0 picks a free one (``HTTPPort/start()`` answers it).
    public var port: Int
    /// A connection that sends nothing for this many seconds is closed (keep-alive included).
    public var idleTimeoutSeconds: Int = 30
    /// The most HTTP connections open at once; one more is closed at once.
    public var maximumConnections: Int = 64
    /// The requests one kept-alive connection may make; the last is answered with `Connection: close`.
    public var maximumRequestsPerConnection: Int = 1000
    /// The longest request body accepted, in bytes; a longer one gets 413 and the connection closes.
    public var maximumBodyBytes: Int = 64 << 10

    /// A configuration on `host` and `port`; the limits have their defaults.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}

/// The HTTP port (`docserver serve --http-port`), for people and tools rather than clients:
/// `GET /healthz` (200 while the process answers), `GET /readyz` (200 once the store is open
/// and, over a shared database, caught up; 503 with the reason otherwise) and `GET /metrics`
/// (Prometheus' text format). Served with SwiftNIO's HTTP/1.1 codec (`NIOHTTP1`), which the
/// server already builds with: no new package to compile.
///
/// It starts before the store is opened (``start()``), so that `/readyz` answers 503 while a
/// large store loads; ``attach(_:)`` hands it the server once the store is open. As a
/// `Service` it runs until the graceful shutdown of its group, then closes.
public final class HTTPPort: Service, Sendable {
    public let configuration: HTTPPortConfiguration
    private let export: PrometheusExport
    private let logger: Logger
    private let server = NIOLockedValueBox<DocumentServer?>(nil)
    private let channel = NIOLockedValueBox<Channel?>(nil)
    private let group: MultiThreadedEventLoopGroup
    /// HTTP connections open now.
    private let open = NIOLockedValueBox(0)

    /// A port that answers `/metrics` from `export`.
    public init(configuration: HTTPPortConfiguration, export: PrometheusExport, logger: Logger) {
        self.configuration = configuration
        self.export = export
        self.logger = logger
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    /// The routes; an endpoint added later (`/rpc`) is one more line here.
    private func router() -> HTTPRouter {
        var router = HTTPRouter()
        router.add(.GET, "/healthz") { _ in .text(.ok, "ok") }
        router.add(.GET, "/readyz") { [server] _ in
            guard let attached = server.withLockedValue({ $0 }) else { return .text(.serviceUnavailable, "not ready: the store is opening") }
            if let reason = attached.status.snapshot().unready { return .text(.serviceUnavailable, "not ready: \(reason)") }
            return .text(.ok, "ready")
        }
        router.add(.GET, "/metrics") { [server, export] _ in
            HTTPAnswer(status: .ok, contentType: "text/plain; version=0.0.4; charset=utf-8", body: export.render(server.withLockedValue { $0 }))
        }
        return router
    }

    /// Binds the port and serves; answers the bound port.
    ///
    /// - Throws: when it cannot listen (the port is in use, say).
    @discardableResult
    public func start() async throws -> Int {
        let router = router()
        let configuration = self.configuration
        let logger = self.logger
        let open = self.open
        let idle = TimeAmount.seconds(Int64(max(1, configuration.idleTimeoutSeconds)))
        let bound = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let admitted = open.withLockedValue { count -> Bool in
                    guard count < configuration.maximumConnections else { return false }
                    count += 1
                    return true
                }
                guard admitted else { return channel.close() }
                channel.closeFuture.whenComplete { _ in open.withLockedValue { $0 -= 1 } }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: idle))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(
                        HTTPRequestHandler(router: router, maximumBodyBytes: configuration.maximumBodyBytes,
                                           maximumRequests: configuration.maximumRequestsPerConnection, logger: logger))
                }
            }
            .bind(host: configuration.host, port: configuration.port).get()
        channel.withLockedValue { $0 = bound }
        let port = bound.localAddress?.port ?? configuration.port
        logger.info("http listening", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
        return port
    }

    /// From now on `/readyz` and `/metrics` answer from `server` (its store is open).
    public func attach(_ server: DocumentServer) {
        self.server.withLockedValue { $0 = server }
    }

    /// Serves until the graceful shutdown of the group that runs it (or cancellation), then closes.
    public func run() async throws {
        try? await gracefulShutdown()
        await close()
    }

    /// Stops listening and closes the connections.
    public func close() async {
        let listener = channel.withLockedValue { channel in
            defer { channel = nil }
            return channel
        }
        try? await listener?.close()
        try? await group.shutdownGracefully()
    }
}
