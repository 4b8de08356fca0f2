@testable import DocumentClient
import DocumentProtocol
import JSONCore
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

/// The client's request matching, in memory: answers by `id` in any order, notifications
/// apart, and an answer nobody waits for closing the connection.
@Suite("Client request matching")
struct RPCClientHandlerTests {
    /// A connected channel with the handler, and the stream its notifications go to.
    final class Connection {
        let channel = EmbeddedChannel()
        let notifications: AsyncStream<RPCNotification>
        let sink: AsyncStream<RPCNotification>.Continuation

        init() throws {
            (notifications, sink) = AsyncStream.makeStream(of: RPCNotification.self)
            try channel.pipeline.syncOperations.addHandler(
                RPCClientHandler(address: "test:1", statistics: ClientStatistics(), notifications: sink))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        }

        /// Sends a request and returns its answer's future.
        func send(_ id: Int64, _ method: String) throws -> EventLoopFuture<JSONValue> {
            let response = channel.eventLoop.makePromise(of: JSONValue.self)
            let line = try RPCRequest.encode(id: id, method: method, params: nil) + [UInt8(ascii: "\n")]
            try channel.writeOutbound(OutgoingRequest(id: id, method: method, line: ByteBuffer(bytes: line), response: response))
            return response.futureResult
        }

        func receive(_ line: String) throws {
            try channel.writeInbound(ByteBuffer(string: line))
        }
    }

    /// The outcome of a future that has completed (nil while it has not).
    static func outcome(_ future: EventLoopFuture<JSONValue>) -> Result<JSONValue, any Error>? {
        let box = NIOLockedValueBox<Result<JSONValue, any Error>?>(nil)
        future.whenComplete { result in box.withLockedValue { $0 = result } }
        return box.withLockedValue { $0 }
    }

    static func value(_ future: EventLoopFuture<JSONValue>) -> JSONValue? {
        guard case .success(let value)? = outcome(future) else { return nil }
        return value
    }

    static func failure(_ future: EventLoopFuture<JSONValue>) -> DocumentClientError? {
        guard case .failure(let error)? = outcome(future) else { return nil }
        return error as? DocumentClientError
    }

    @Test("answers that come in another order than the requests complete the requests their ids name")
    func answersOutOfOrder() throws {
        let connection = try Connection()
        let first = try connection.send(1, "get")
        let second = try connection.send(2, "fetch")
        let third = try connection.send(3, "ping")
        try connection.receive(#"{"jsonrpc":"2.0","id":3,"result":"three"}"#)
        try connection.receive(#"{"jsonrpc":"2.0","id":1,"result":"one"}"#)
        #expect(Self.value(third) == .string("three"))
        #expect(Self.value(first) == .string("one"))
        #expect(Self.outcome(second) == nil)
        try connection.receive(#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"invalid params: entity: unknown","data":{"path":"entity","reason":"unknown"}}}"#)
        guard case .server(let remote)? = Self.failure(second) else {
            Issue.record("expected the server's error, got \(String(describing: Self.outcome(second)))")
            return
        }
        #expect(remote.code == .invalidParams)
        #expect(remote.method == "fetch")
        #expect(remote.error == RPCError(code: .invalidParams, message: "invalid params: entity: unknown",
                                         data: .object([("path", .string("entity")), ("reason", .string("unknown"))])))
        #expect(connection.channel.isActive)
    }

    @Test("a message without an id between two answers goes to the notification stream, not to a request")
    func notificationBetweenAnswers() async throws {
        let connection = try Connection()
        let first = try connection.send(1, "get")
        let second = try connection.send(2, "get")
        try connection.receive(#"{"jsonrpc":"2.0","id":1,"result":1}"#)
        try connection.receive(#"{"jsonrpc":"2.0","method":"changes","params":{"seq":7}}"#)
        try connection.receive(#"{"jsonrpc":"2.0","id":2,"result":2}"#)
        #expect(Self.value(first) == .integer(1))
        #expect(Self.value(second) == .integer(2))
        connection.sink.finish()
        var received: [RPCNotification] = []
        for await notification in connection.notifications { received.append(notification) }
        #expect(received == [RPCNotification(method: "changes", params: .object([("seq", .integer(7))]))])
        #expect(connection.channel.isActive)
    }

    @Test("an answer with an id no request waits for closes the connection and fails what is pending")
    func unknownIDClosesTheConnection() throws {
        let connection = try Connection()
        let pending = try connection.send(1, "get")
        try connection.receive(#"{"jsonrpc":"2.0","id":9,"result":null}"#)
        #expect(!connection.channel.isActive)
        guard case .invalidResponse(let address, let reason)? = Self.failure(pending) else {
            Issue.record("expected invalidResponse, got \(String(describing: Self.outcome(pending)))")
            return
        }
        #expect(address == "test:1")
        #expect(reason.contains("id 9"))
    }

    @Test("an answer given twice is an answer nobody waits for the second time")
    func repeatedAnswerClosesTheConnection() throws {
        let connection = try Connection()
        let first = try connection.send(1, "get")
        let second = try connection.send(2, "save")
        try connection.receive(#"{"jsonrpc":"2.0","id":1,"result":true}"#)
        try connection.receive(#"{"jsonrpc":"2.0","id":1,"result":true}"#)
        #expect(Self.value(first) == .bool(true))
        guard case .invalidResponse? = Self.failure(second) else {
            Issue.record("expected invalidResponse, got \(String(describing: Self.outcome(second)))")
            return
        }
    }

    @Test("a timeout fails its own request, and one for a request answered already changes nothing")
    func timeoutFailsTheRightRequest() throws {
        let connection = try Connection()
        let first = try connection.send(1, "get")
        let second = try connection.send(2, "fetch")
        try connection.receive(#"{"jsonrpc":"2.0","id":2,"result":[]}"#)
        connection.channel.pipeline.fireUserInboundEventTriggered(RequestTimedOut(id: 2, method: "fetch", seconds: 1))
        #expect(connection.channel.isActive)
        #expect(Self.outcome(first) == nil)
        connection.channel.pipeline.fireUserInboundEventTriggered(RequestTimedOut(id: 1, method: "get", seconds: 1))
        #expect(!connection.channel.isActive)
        guard case .timedOut(_, let method, _)? = Self.failure(first) else {
            Issue.record("expected timedOut, got \(String(describing: Self.outcome(first)))")
            return
        }
        #expect(method == "get")
        #expect(Self.value(second) == .array([]))
    }
}
