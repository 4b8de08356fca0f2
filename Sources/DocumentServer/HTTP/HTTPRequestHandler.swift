import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Serves HTTP/1.1 requests on one connection of the HTTP port through an ``HTTPRouter``:
/// the body is gathered up to a limit (past it: 413 and the connection closes), keep-alive is
/// honoured for a bounded number of requests, and a connection idle for the port's timeout
/// (the ``IdleStateHandler`` before this one says so) is closed.
final class HTTPRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let router: HTTPRouter
    /// The body limit of the request being read (``bodyLimit``'s answer for its head).
    private var maximumBodyBytes: Int
    /// The longest body a request may send (`POST /rpc`: the server's line limit; else the port's).
    private let bodyLimit: @Sendable (HTTPRequestHead) -> Int
    private let maximumRequests: Int
    private let logger: Logger
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// The request's body passed the limit: its answer is 413, then the connection closes.
    private var tooLarge = false
    private var served = 0
    private var closing = false

    init(router: HTTPRouter, bodyLimit: @escaping @Sendable (HTTPRequestHead) -> Int, maximumRequests: Int, logger: Logger) {
        self.router = router
        self.bodyLimit = bodyLimit
        maximumBodyBytes = 0
        self.maximumRequests = maximumRequests
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body.clear()
            let declared = requestHead.headers.first(name: "content-length").flatMap { Int($0) } ?? 0
            maximumBodyBytes = bodyLimit(requestHead)
            tooLarge = declared > maximumBodyBytes
        case .body(var part):
            guard !tooLarge else { return }
            if body.readableBytes + part.readableBytes > maximumBodyBytes {
                tooLarge = true
                body.clear()
            } else {
                body.writeBuffer(&part)
            }
        case .end:
            guard let requestHead = head else { return }
            head = nil
            served += 1
            let keepAlive = requestHead.isKeepAlive && !tooLarge && served < maximumRequests
            guard !tooLarge else {
                let limit = bodyLimit(requestHead)
                respond(.text(.payloadTooLarge, "the request's body is larger than \(limit) bytes"), to: requestHead, keepAlive: false, context: context)
                return
            }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            router.answer(HTTPRequest(head: requestHead, body: body, address: context.channel.remoteAddress?.ipAddress ?? "unknown"),
                          on: context.eventLoop).whenComplete { result in
                let (handler, context) = bound.value
                let answer = (try? result.get()) ?? .text(.internalServerError, "the request failed")
                handler.respond(answer, to: requestHead, keepAlive: keepAlive && !answer.close, context: context)
            }
        }
    }

    private func respond(_ answer: HTTPAnswer, to request: HTTPRequestHead, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: answer.contentType)
        headers.add(name: "Content-Length", value: "\(answer.body.count)")
        headers.add(name: "Cache-Control", value: "no-store")
        for (name, value) in answer.headers { headers.add(name: name, value: value) }
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let responseHead = HTTPResponseHead(version: request.version, status: answer.status, headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        if request.method != .HEAD, !answer.body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: answer.body.count)
            buffer.writeBytes(answer.body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            closing = true
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            closing = true
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if error is NIOWebSocketUpgradeError {
            // `/rpc` refused to upgrade (another path, an origin not allowed, the store not open yet):
            // the request comes next, as a plain one, and the routes answer it (403, 426, 404).
            return
        }
        logger.debug("http connection error", metadata: ["error": "\(error)"])
        closing = true
        context.close(promise: nil)
    }
}
