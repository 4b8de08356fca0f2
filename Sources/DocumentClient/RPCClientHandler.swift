import DocumentProtocol
import JSONCore
import NIOCore

/// Matches answer lines to requests by their `id`, and hands messages without an `id`
/// (notifications the server pushes) to a stream of their own.
///
/// Requests wait in a table by id, so answers may come in any order. An answer whose id no
/// request is waiting for breaks the protocol: the connection is closed with
/// ``DocumentClientError/invalidResponse(address:reason:)``.
///
/// When the connection closes, every pending request fails: with
/// ``DocumentClientError/connectionLost(address:method:outcomeUnknown:)``, or with the reason
/// the connection was closed for (a timeout, an answer that breaks the protocol).
///
/// Not `Sendable`: it belongs to its channel's event loop.
final class RPCClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = OutgoingRequest
    typealias OutboundOut = ByteBuffer

    private let address: String
    private let statistics: ClientStatistics
    private let notifications: AsyncStream<RPCNotification>.Continuation?
    /// The requests sent and not answered yet, by id (ids grow in the order of sending).
    private var pending: [Int64: OutgoingRequest] = [:]
    /// Why this side closed the connection; pending requests fail with it.
    private var closeReason: DocumentClientError?
    private var isClosed = false

    /// A handler for the connection to `address`; notifications go to `notifications`
    /// (dropped when nil).
    init(address: String, statistics: ClientStatistics, notifications: AsyncStream<RPCNotification>.Continuation? = nil) {
        self.address = address
        self.statistics = statistics
        self.notifications = notifications
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        if isClosed {
            // Never sent: not even a save can have been applied.
            request.response.fail(closeReason ?? DocumentClientError.connectionLost(address: address, method: request.method, outcomeUnknown: false))
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        pending[request.id] = request
        context.write(wrapOutboundOut(request.line), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        statistics.countReceived(line.readableBytes + 1)
        let message: ServerMessage
        do {
            let value = try line.withUnsafeReadableBytes { try JSONValue.parse($0) }
            message = try ServerMessage.parse(value)
        } catch let error as RPCError {
            return close(context, .invalidResponse(address: address, reason: error.reason))
        } catch {
            return close(context, .invalidResponse(address: address, reason: "a message is not JSON: \(error)"))
        }
        switch message {
        case .notification(let notification):
            notifications?.yield(notification)
        case .part(let id, _):
            // This client never asks for a streamed answer.
            return close(context, .invalidResponse(address: address, reason: "a part of a streamed answer (id \(id.jsonText)), which no request asked for"))
        case .response(let id, let outcome):
            guard case .number(let text) = id, let number = Int64(text), let request = pending.removeValue(forKey: number) else {
                return close(context, .invalidResponse(address: address, reason: "an answer carries id \(id.jsonText), which no request is waiting for"))
            }
            switch outcome {
            case .success(let result):
                request.response.succeed(result)
            case .failure(let error):
                request.response.fail(DocumentClientError.server(RemoteError(error, method: request.method)))
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let timeout = event as? RequestTimedOut {
            // Only a request still waiting times out; one answered meanwhile is done.
            guard pending[timeout.id] != nil else { return }
            close(context, .timedOut(address: address, method: timeout.method, seconds: timeout.seconds))
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let tooLong = error as? LineTooLongError {
            close(context, .invalidResponse(address: address, reason: "an answer is longer than the client's limit of \(tooLong.limit) bytes"))
        } else {
            context.close(promise: nil)  // a reset or another I/O error: the connection is lost
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        isClosed = true
        let waiting = pending
        pending = [:]
        for id in waiting.keys.sorted() {
            if let request = waiting[id] { request.response.fail(closeReason ?? lost(request)) }
        }
        context.fireChannelInactive()
    }

    private func close(_ context: ChannelHandlerContext, _ reason: DocumentClientError) {
        if closeReason == nil { closeReason = reason }
        context.close(promise: nil)
    }

    private func lost(_ request: OutgoingRequest) -> DocumentClientError {
        .connectionLost(address: address, method: request.method, outcomeUnknown: request.method == "save")
    }
}
