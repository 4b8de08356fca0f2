import DocumentWire
import JSONCore
import NIOCore

/// Matches answer lines to requests. The server answers the requests of a connection in the
/// order they came, so answers complete the pending requests first to last; each answer's
/// `id` is checked against its request's.
///
/// When the connection closes, every pending request fails: with
/// ``DocumentClientError/connectionLost(address:method:outcomeUnknown:)``, or with the reason
/// the connection was closed for (a timeout, an answer that breaks the protocol).
final class RPCClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = OutgoingRequest
    typealias OutboundOut = ByteBuffer

    private let address: String
    private let statistics: ClientStatistics
    private var pending = CircularBuffer<OutgoingRequest>()
    /// Why this side closed the connection; pending requests fail with it.
    private var closeReason: DocumentClientError?
    private var isClosed = false

    init(address: String, statistics: ClientStatistics) {
        self.address = address
        self.statistics = statistics
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        if isClosed {
            // Never sent: not even a save can have been applied.
            request.response.fail(closeReason ?? DocumentClientError.connectionLost(address: address, method: request.method, outcomeUnknown: false))
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        pending.append(request)
        context.write(wrapOutboundOut(request.line), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        statistics.countReceived(line.readableBytes + 1)
        guard let request = pending.popFirst() else {
            return close(context, .invalidResponse(address: address, reason: "an answer came with no request waiting for it"))
        }
        do {
            let answer = try line.withUnsafeReadableBytes { try JSONValue.parse($0) }
            try complete(request, with: answer)
        } catch let error as DocumentClientError {
            request.response.fail(error)
            close(context, error)
        } catch {
            let failure = DocumentClientError.invalidResponse(address: address, reason: "the answer to `\(request.method)` is not JSON: \(error)")
            request.response.fail(failure)
            close(context, failure)
        }
    }

    /// Completes a request with its answer: its `result`, or its `error`.
    private func complete(_ request: OutgoingRequest, with answer: JSONValue) throws(DocumentClientError) {
        guard answer["id"] == .integer(request.id) else {
            throw .invalidResponse(address: address, reason: "the answer to request \(request.id) (`\(request.method)`) carries id \(answer["id"]?.jsonText ?? "nothing")")
        }
        if let error = answer["error"] {
            guard case .number(let codeText)? = error["code"], let code = Int(codeText) else {
                throw .invalidResponse(address: address, reason: "the error answering `\(request.method)` has no integer code")
            }
            var message = ""
            if case .string(let text)? = error["message"] { message = text }
            request.response.fail(DocumentClientError.server(RemoteError(code: code, message: message, data: error["data"], method: request.method)))
            return
        }
        guard let result = answer["result"] else {
            throw .invalidResponse(address: address, reason: "the answer to `\(request.method)` has neither result nor error")
        }
        request.response.succeed(result)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let timeout = event as? RequestTimedOut {
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
        while let request = pending.popFirst() {
            request.response.fail(closeReason ?? lost(request))
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
