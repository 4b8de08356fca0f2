import DocumentProtocol
import JSONCore
import NIOCore
import NIOPosix
#if TLS
import NIOSSL
#endif
import Synchronization

/// One TCP connection to a server, with requests pipelined on it.
final class RPCConnection: Sendable {
    let channel: Channel
    let configuration: ClientConfiguration
    private let nextID = Atomic<Int64>(1)
    /// Set once the channel has closed (on its event loop, before a group shutting down stops
    /// the loop): closing it again would ask a loop that may be gone.
    private let closed = Atomic<Bool>(false)

    /// Made on the channel's event loop (so the close callback is registered before it can run
    /// anywhere else).
    private init(channel: Channel, configuration: ClientConfiguration) {
        self.channel = channel
        self.configuration = configuration
        channel.closeFuture.whenComplete { [weak self] _ in self?.closed.store(true, ordering: .releasing) }
    }

    /// Connects (no `hello` yet).
    static func connect(_ configuration: ClientConfiguration, group: EventLoopGroup, statistics: ClientStatistics,
                        notifications: AsyncStream<RPCNotification>.Continuation? = nil) -> EventLoopFuture<RPCConnection> {
        let address = configuration.address
        let maximumLineLength = configuration.maximumLineLength
        let eventLoop = group.next()
        guard (0...Int(UInt16.max)).contains(configuration.port) else {
            return eventLoop.makeFailedFuture(DocumentClientError.cannotConnect(address: address, reason: "the port must be 0 to 65535"))
        }
        #if TLS
        let tlsContext: NIOSSLContext?
        do {
            tlsContext = try configuration.tls.map { try $0.makeContext() }
        } catch {
            return eventLoop.makeFailedFuture(DocumentClientError.cannotConnect(address: address, reason: "TLS: \(error)"))
        }
        let serverHostname = configuration.tls?.serverHostname ?? configuration.host
        #else
        if configuration.tls != nil {
            return eventLoop.makeFailedFuture(DocumentClientError.cannotConnect(address: address, reason: ClientTLS.missingTrait))
        }
        #endif
        return ClientBootstrap(group: eventLoop)
            .connectTimeout(.nanoseconds(ClientConfiguration.nanoseconds(configuration.connectTimeout)))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    #if TLS
                    if let tlsContext {
                        // An IP address is not a host name for SNI: verified against the certificate's IP entries.
                        let isAddress = serverHostname.contains(":") || serverHostname.allSatisfy { $0.isNumber || $0 == "." }
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: tlsContext, serverHostname: isAddress ? nil : serverHostname))
                    }
                    #endif
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(LineFrameDecoder(maximumLength: maximumLineLength)),
                        RPCClientHandler(address: address, statistics: statistics, notifications: notifications),
                    ])
                }
            }
            .connect(host: configuration.host, port: configuration.port)
            .flatMapErrorThrowing { error in
                throw DocumentClientError.cannotConnect(address: address, reason: "\(error)")
            }
            .map { RPCConnection(channel: $0, configuration: configuration) }
    }

    var isActive: Bool { channel.isActive }

    /// Sends a request; the future gets its `result`.
    func call(_ method: String, params: ParamsWriter?) -> EventLoopFuture<JSONValue> {
        let eventLoop = channel.eventLoop
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let line: ByteBuffer
        do {
            var bytes = try RPCRequest.encode(id: id, method: method, params: params)
            bytes.append(UInt8(ascii: "\n"))
            line = channel.allocator.buffer(bytes: bytes)
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        let response = eventLoop.makePromise(of: JSONValue.self)
        let seconds = configuration.requestTimeout
        let channel = self.channel
        let timeout = eventLoop.scheduleTask(in: .nanoseconds(ClientConfiguration.nanoseconds(seconds))) {
            channel.pipeline.fireUserInboundEventTriggered(RequestTimedOut(id: id, method: method, seconds: seconds))
        }
        response.futureResult.whenComplete { _ in timeout.cancel() }
        // A channel closed already never reaches the handler: the failed write fails the request.
        let written = eventLoop.makePromise(of: Void.self)
        let address = configuration.address
        written.futureResult.whenFailure { _ in
            response.fail(DocumentClientError.connectionLost(address: address, method: method, outcomeUnknown: false))
        }
        channel.writeAndFlush(OutgoingRequest(id: id, method: method, line: line, response: response), promise: written)
        return response.futureResult
    }

    /// Closes the connection, unless it has closed already: after the client's event loop
    /// group shut down (which closes every channel first), nothing is asked of its loop.
    func close() {
        guard !closed.load(ordering: .acquiring) else { return }
        channel.close(promise: nil)
    }
}
