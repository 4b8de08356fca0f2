import BenchmarkSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// How a load connection reaches the docserver: the line protocol over plain TCP, over TLS
/// (the server's certificate verified against the one the benchmark made), or over the HTTP
/// port's `/rpc` WebSocket (one JSON-RPC message per text frame). Every transport hands the
/// same ``LoadHandler`` lines, so the three figures differ by the transport only.
enum Transport: Sendable {
    case tcp(port: Int)
    /// `serverHostname`: the name the certificate is checked against (and sent as SNI).
    case tls(port: Int, context: NIOSSLContext, serverHostname: String)
    /// The HTTP port; the upgrade asks for `GET /rpc`.
    case webSocket(port: Int)

    var label: String {
        switch self {
        case .tcp: "TCP"
        case .tls: "TLS"
        case .webSocket: "WebSocket /rpc"
        }
    }

    /// A connected channel whose pipeline ends with `handler()` (made on the channel's loop),
    /// ready for lines: for a WebSocket, once the upgrade is answered.
    func connect(host: String, on eventLoop: any EventLoop,
                 handler: @escaping @Sendable () -> any ChannelHandler) async throws -> Channel {
        let bootstrap = ClientBootstrap(group: eventLoop).channelOption(.socketOption(.tcp_nodelay), value: 1)
        switch self {
        case .tcp(let port):
            return try await bootstrap.channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler()) }
            }.connect(host: host, port: port).get()
        case .tls(let port, let context, let serverHostname):
            return try await bootstrap.channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverHostname))
                    try channel.pipeline.syncOperations.addHandler(handler())
                }
            }.connect(host: host, port: port).get()
        case .webSocket(let port):
            let upgraded = try await bootstrap.connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture { () -> EventLoopFuture<Channel?> in
                    // Answers of the touch step carry 1,000 objects: frames up to 64 MiB (the server's answer limit).
                    let upgrader = NIOTypedWebSocketClientUpgrader<Channel?>(maxFrameSize: 1 << 26, upgradePipelineHandler: { channel, _ in
                        channel.eventLoop.makeCompletedFuture { () -> Channel? in
                            try channel.pipeline.syncOperations.addHandler(WebSocketLineAdapter())
                            try channel.pipeline.syncOperations.addHandler(handler())
                            return channel
                        }
                    })
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "\(host):\(port)")
                    headers.add(name: "Content-Length", value: "0")
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/rpc", headers: headers)
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Channel?>(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(nil) })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                }
            }
            guard let channel = try await upgraded.get() else { throw BenchmarkError("the server did not upgrade GET /rpc to a WebSocket") }
            return channel
        }
    }
}

/// The load generator of every server figure (``LoadGenerator``: closed loop, one SwiftNIO
/// event-loop thread), with the connections made by a ``Transport``.
struct TransportLoad {
    let group: MultiThreadedEventLoopGroup
    let host: String
    let warmup: TimeAmount
    let duration: TimeAmount

    func run(connections: Int, transport: Transport, workload: @escaping WorkloadFactory) async throws -> Measurement {
        let eventLoop = group.next()
        let run = LoadRun(eventLoop: eventLoop, connections: connections)
        var channels: [Channel] = []
        do {
            for connection in 0..<connections {
                channels.append(try await transport.connect(host: host, on: eventLoop) {
                    LoadHandler(run: run, workload: workload(connection))
                })
            }
        } catch {
            for channel in channels { try? await channel.close() }
            throw error
        }
        run.start(channels: channels, warmup: warmup, duration: duration)
        let measurement = try await run.measurement.get()
        for channel in channels { try? await channel.close() }
        return measurement
    }

    /// `get` of every one of `ids`, 1,000 per request, one connection, answers checked and
    /// dropped (not timed): the server has then sent every object once, as in a steady state.
    func touch(_ ids: [String], transport: Transport) async throws {
        let eventLoop = group.next()
        let requests = stride(from: 0, to: ids.count, by: 1000).map { start in
            ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["#
                + ids[start..<min(start + 1000, ids.count)].map(jsonString).joined(separator: ",") + "]}}\n")
        }
        let done = eventLoop.makePromise(of: Void.self)
        let channel = try await transport.connect(host: host, on: eventLoop) { TouchHandler(requests: requests, done: done) }
        channel.pipeline.fireUserInboundEventTriggered(LoadHandler.Start())
        defer { channel.close(promise: nil) }
        try await done.futureResult.get()
    }
}

/// Sends `requests` one after another on one connection, each after the last one's answer
/// line, which must be a result; then completes `done`.
final class TouchHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let requests: [ByteBuffer]
    private let done: EventLoopPromise<Void>
    private var next = 0
    private var received = ByteBuffer()
    private var completed = false

    init(requests: [ByteBuffer], done: EventLoopPromise<Void>) {
        self.requests = requests
        self.done = done
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is LoadHandler.Start { sendNext(context: context) } else { context.fireUserInboundEventTriggered(event) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        received.writeBuffer(&incoming)
        while let newline = received.readableBytesView.firstIndex(of: 0x0A) {
            let length = newline - received.readerIndex
            let ok = received.readableBytesView.starts(with: ResponseBytes.result)
            received.moveReaderIndex(forwardBy: length + 1)
            guard ok else {
                complete(BenchmarkError("a get of 1,000 objects failed while touching every object"))
                return
            }
            sendNext(context: context)
        }
        received.discardReadBytes()
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete(BenchmarkError("the server closed the connection while every object was touched"))
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        complete(BenchmarkError("touching every object: \(error)"))
        context.close(promise: nil)
    }

    /// Completes `done` once: with `failure`, or successfully when it is nil.
    private func complete(_ failure: BenchmarkError?) {
        guard !completed else { return }
        completed = true
        if let failure { done.fail(failure) } else { done.succeed(()) }
    }

    private func sendNext(context: ChannelHandlerContext) {
        guard !completed else { return }
        guard next < requests.count else {
            complete(nil)
            return
        }
        context.writeAndFlush(wrapOutboundOut(requests[next]), promise: nil)
        next += 1
    }
}
