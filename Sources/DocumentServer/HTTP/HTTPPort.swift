import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
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
    /// The web pages (`scheme://host[:port]`, `*` for any) whose browsers may use `/rpc`
    /// (`--http-allow-origin`); clients that send no `Origin` and the port's own page always may
    /// (``OriginPolicy``).
    public var allowedOrigins: [String] = []
    /// Whether `/` serves the page (the files of `web/`, embedded in the binary).
    public var servesPage = true

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

    /// The routes.
    private func router() -> HTTPRouter {
        var router = HTTPRouter()
        let origins = OriginPolicy(allowed: configuration.allowedOrigins)
        let logger = self.logger
        router.add(.GET, "/rpc") { [server] request in
            // Reached only when the request did not upgrade.
            guard origins.allows(request.head) else { return .text(.forbidden, origins.refusal(request.head)) }
            guard server.withLockedValue({ $0 }) != nil else { return .text(.serviceUnavailable, "not ready: the store is opening") }
            return .text(.upgradeRequired, "GET /rpc upgrades to a WebSocket (send Upgrade: websocket); POST /rpc takes one request or a batch")
        }
        router.add(.POST, "/rpc", deferred: { [server] request, loop in
            guard origins.allows(request.head) else { return loop.makeSucceededFuture(.text(.forbidden, origins.refusal(request.head))) }
            guard let attached = server.withLockedValue({ $0 }) else {
                return loop.makeSucceededFuture(.text(.serviceUnavailable, "not ready: the store is opening"))
            }
            return attached.answerPost(request.body, from: request.address, on: loop, logger: logger)
        })
        if configuration.servesPage { PageFiles.addRoutes(to: &router) }
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
        let origins = OriginPolicy(allowed: configuration.allowedOrigins)
        let idle = IdleTimeout.amount(seconds: configuration.idleTimeoutSeconds, minimum: 1) ?? .seconds(1)
        let bound = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // As the line port: small answers (a WebSocket's) go out at once, not after Nagle's delay.
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [server] channel in
                let admitted = open.withLockedValue { count -> Bool in
                    guard count < configuration.maximumConnections else { return false }
                    count += 1
                    return true
                }
                guard admitted else { return channel.close() }
                // Counted as HTTP until it upgrades: a WebSocket counts with the line protocol's connections.
                let counted = NIOLockedValueBox(true)
                let uncount: @Sendable () -> Void = { counted.withLockedValue { still in
                    if still { open.withLockedValue { $0 -= 1 } }
                    still = false
                } }
                channel.closeFuture.whenComplete { _ in uncount() }
                let upgrader = Self.rpcUpgrader(server: server, origins: origins, logger: logger, uncount: uncount)
                let bodyLimit: @Sendable (HTTPRequestHead) -> Int = { head in
                    guard head.method == .POST, head.uri.hasPrefix("/rpc") else { return configuration.maximumBodyBytes }
                    return server.withLockedValue { $0?.configuration.maximumLineLength } ?? ServerConfiguration.defaultMaximumLineLength
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: idle), name: Self.idleHandlerName)
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withPipeliningAssistance: true,
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }),
                        withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(
                        HTTPRequestHandler(router: router, bodyLimit: bodyLimit,
                                           maximumRequests: configuration.maximumRequestsPerConnection, logger: logger),
                        name: Self.requestHandlerName)
                }
            }
            .bind(host: configuration.host, port: configuration.port).get()
        channel.withLockedValue { $0 = bound }
        let port = bound.localAddress?.port ?? configuration.port
        logger.info("http listening", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
        return port
    }

    private static let idleHandlerName = "http-idle"
    private static let requestHandlerName = "http-requests"

    /// `GET /rpc` with `Upgrade: websocket`, from an allowed origin, once the store is open:
    /// the connection leaves HTTP and becomes one of the server's connections
    /// (``DocumentServer/adoptWebSocket(_:logger:)``). Otherwise the request goes on to the
    /// routes, which answer 403 (origin) or 426.
    private static func rpcUpgrader(server: NIOLockedValueBox<DocumentServer?>, origins: OriginPolicy, logger: Logger,
                                    uncount: @escaping @Sendable () -> Void) -> NIOWebSocketServerUpgrader {
        let maximumFrame = min(Int(UInt32.max), server.withLockedValue { $0?.configuration.maximumLineLength } ?? ServerConfiguration.defaultMaximumLineLength)
        return NIOWebSocketServerUpgrader(
            maxFrameSize: max(1, maximumFrame), automaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                let upgrade = path == "/rpc" && origins.allows(head) && server.withLockedValue({ $0 }) != nil
                return channel.eventLoop.makeSucceededFuture(upgrade ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                guard let attached = server.withLockedValue({ $0 }) else { return channel.close() }
                uncount()
                let removed = channel.pipeline.removeHandler(name: idleHandlerName)
                    .and(channel.pipeline.removeHandler(name: requestHandlerName))
                return removed.flatMap { _ in attached.adoptWebSocket(channel, logger: logger) }
            })
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
