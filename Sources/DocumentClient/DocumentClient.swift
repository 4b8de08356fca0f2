import DocumentProtocol
import JSONCore
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A client of a `docserver`: one connection, made on first use and made again after it
/// is lost, with `hello` (and the token) sent first on each. Requests from any thread or
/// task are pipelined on the connection.
///
/// ```swift
/// let client = DocumentClient(configuration: ClientConfiguration(host: "127.0.0.1", port: 7878))
/// let hello = try await client.hello()
/// let count = try await client.call("fetch", params: .object([("entity", .string("Song")), ("resultType", .string("count"))]))
/// try await client.shutdown()
/// ```
///
/// A request in flight when the connection is lost fails with
/// ``DocumentClientError/connectionLost(address:method:outcomeUnknown:)``; the next one
/// connects again.
public final class DocumentClient: Sendable {
    /// Where the client connects, its token and its timeouts.
    public let configuration: ClientConfiguration
    let group: EventLoopGroup
    private let ownsGroup: Bool

    private struct State {
        var connection: EventLoopFuture<RPCConnection>?
        var hello: ServerHello?
        var isShutDown = false
        /// The connections of subscriptions (``changes(entity:predicate:arguments:since:includeValues:model:)``), closed at shutdown.
        var feeds: [ObjectIdentifier: RPCConnection] = [:]
    }

    private let state = NIOLockedValueBox(State())
    /// Requests, connections and bytes so far.
    public let statistics = ClientStatistics()

    /// The notifications the server pushes (its messages without an `id`), from every
    /// connection the client makes, in the order they came; the stream ends at shutdown.
    ///
    /// Subscriptions to live changes use connections of their own
    /// (``changes(entity:predicate:arguments:since:includeValues:model:)``), so their
    /// notifications are not here. When nobody reads, the newest ``notificationBufferLimit`` notifications are kept and older ones
    /// dropped, so that a client that never reads them never grows without bound.
    public let notifications: AsyncStream<RPCNotification>
    private let notificationSink: AsyncStream<RPCNotification>.Continuation
    /// How many unread notifications ``notifications`` keeps (the newest).
    public static let notificationBufferLimit = 1024

    /// A client; it runs on `eventLoopGroup`, or on a thread of its own when nil.
    public init(configuration: ClientConfiguration, eventLoopGroup: EventLoopGroup? = nil) {
        self.configuration = configuration
        (notifications, notificationSink) = AsyncStream.makeStream(
            of: RPCNotification.self, bufferingPolicy: .bufferingNewest(Self.notificationBufferLimit))
        if let eventLoopGroup {
            group = eventLoopGroup
            ownsGroup = false
        } else {
            group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            ownsGroup = true
        }
    }

    /// The server's `hello` on the current (or last) connection.
    public var lastHello: ServerHello? { state.withLockedValue { $0.hello } }

    deinit {
        if ownsGroup { group.shutdownGracefully { _ in } }
    }

    // MARK: - Requests

    /// Sends a request on the connection (connecting first when there is none); the future
    /// gets the `result`.
    func request(_ method: String, params: ParamsWriter?) -> EventLoopFuture<JSONValue> {
        connection().flatMap { connection in
            self.statistics.countRequest()
            return connection.call(method, params: params)
        }
    }

    /// Calls `method` with `params` (a JSON object) and returns its `result`.
    ///
    /// - Throws: ``DocumentClientError``: ``DocumentClientError/server(_:)`` carries the
    ///   server's error code, message and data.
    public func call(_ method: String, params: JSONValue? = nil) async throws -> JSONValue {
        try ensureOpen()
        var writer: ParamsWriter?
        if let params { writer = { out in try params.write(to: out) } }
        return try await request(method, params: writer).get()
    }

    /// Connects if needed and returns the server's `hello`.
    public func hello() async throws -> ServerHello {
        try ensureOpen()
        return try await helloFuture().get()
    }

    func helloFuture() -> EventLoopFuture<ServerHello> {
        connection().flatMapThrowing { _ in
            guard let hello = self.lastHello else {
                throw DocumentClientError.connectionLost(address: self.configuration.address, method: "hello", outcomeUnknown: false)
            }
            return hello
        }
    }

    /// Sends `ping` and returns the seconds the answer took.
    public func ping() async throws -> Double {
        try ensureOpen()
        let start = ContinuousClock.now
        _ = try await request(ProtocolMethod.ping.rawValue, params: nil).get()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    // MARK: - The connection

    /// Throws ``DocumentClientError/shutDown`` once the client is shut down. Checked before a
    /// request is made: the futures of a request chain on the client's event loops, which are
    /// gone after ``shutdown()``, so a request made then would never complete.
    func ensureOpen() throws(DocumentClientError) {
        if state.withLockedValue({ $0.isShutDown }) { throw .shutDown }
    }

    /// The current connection, or a new one (connected and past `hello`).
    func connection() -> EventLoopFuture<RPCConnection> {
        state.withLockedValue { state -> EventLoopFuture<RPCConnection> in
            if state.isShutDown { return group.any().makeFailedFuture(DocumentClientError.shutDown) }
            if let connection = state.connection { return connection }
            let connecting = connect()
            state.connection = connecting
            return connecting
        }
    }

    private func connect() -> EventLoopFuture<RPCConnection> {
        let connecting = openConnection(notifications: notificationSink)
            .map { connection, hello -> RPCConnection in
                self.state.withLockedValue { $0.hello = hello }
                return connection
            }
        // Forget the connection once it fails or closes, so that the next request makes a new one.
        connecting.whenComplete { result in
            switch result {
            case .success(let connection):
                connection.channel.closeFuture.whenComplete { _ in self.forget(connecting) }
            case .failure:
                self.forget(connecting)
            }
        }
        return connecting
    }

    /// A new connection, past `hello` (with the token and the client's name), and the
    /// server's answer; its notifications go to `notifications`.
    func openConnection(notifications: AsyncStream<RPCNotification>.Continuation?,
                        statistics: ClientStatistics? = nil) -> EventLoopFuture<(RPCConnection, ServerHello)> {
        let configuration = self.configuration
        let statistics = statistics ?? self.statistics
        return RPCConnection.connect(configuration, group: group, statistics: statistics, notifications: notifications).flatMap { connection in
            statistics.countConnection()  // made: an attempt that fails is not counted
            statistics.countRequest()
            return connection.call(ProtocolMethod.hello.rawValue, params: { out in
                try out.openObject()
                if let token = configuration.token {
                    try out.string(HelloMembers.token)
                    try out.string(token)
                }
                if let user = configuration.user, let secret = configuration.secret {
                    try out.string(HelloMembers.user)
                    try out.string(user)
                    try out.string(HelloMembers.secret)
                    try out.string(secret)
                }
                try out.string(HelloMembers.client)
                try out.string(configuration.clientName)
                try out.closeObject()
            })
            .flatMapThrowing { result -> (RPCConnection, ServerHello) in
                (connection, try ServerHello(result, address: configuration.address))
            }
            .flatMapErrorThrowing { error -> (RPCConnection, ServerHello) in
                connection.close()
                throw error
            }
        }
    }

    /// Keeps a subscription's connection, to close it at shutdown; false when the client is
    /// shut down already (the caller closes it).
    func registerFeed(_ connection: RPCConnection) -> Bool {
        state.withLockedValue { state in
            if state.isShutDown { return false }
            state.feeds[ObjectIdentifier(connection)] = connection
            return true
        }
    }

    /// Forgets a subscription's connection (it is closed).
    func unregisterFeed(_ connection: RPCConnection) {
        _ = state.withLockedValue { $0.feeds.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    private func forget(_ connection: EventLoopFuture<RPCConnection>) {
        state.withLockedValue { state in
            if state.connection === connection { state.connection = nil }
        }
    }

    /// Closes the connection; requests in flight fail, the next one connects again.
    public func disconnect() {
        let connection = state.withLockedValue { state -> EventLoopFuture<RPCConnection>? in
            defer { state.connection = nil }
            return state.connection
        }
        connection?.whenSuccess { $0.close() }
    }

    /// Closes the connection and stops the client's thread; later requests fail.
    public func shutdown() async throws {
        _ = try? await closeForShutdown()?.get()
        if ownsGroup { try await group.shutdownGracefully() }
    }

    /// ``shutdown()`` for code that is not async (not from the client's own event loop).
    public func syncShutdown() throws {
        if let closed = closeForShutdown() {
            if closed.eventLoop.inEventLoop { throw DocumentClientError.calledOnEventLoop(method: "syncShutdown") }
            _ = try? closed.wait()
        }
        if ownsGroup { try group.syncShutdownGracefully() }
    }

    /// Closes the connection and lets the client's thread stop without waiting for it (from
    /// a `deinit`, or from any thread, the event loop's own included).
    public func shutdownInBackground() {
        _ = closeForShutdown()
        if ownsGroup { group.shutdownGracefully { _ in } }
    }

    /// Marks the client shut down and closes its connection; the future completes once it is closed.
    private func closeForShutdown() -> EventLoopFuture<Void>? {
        let (connection, feeds) = state.withLockedValue { state -> (EventLoopFuture<RPCConnection>?, [RPCConnection]) in
            state.isShutDown = true
            defer {
                state.connection = nil
                state.feeds = [:]
            }
            return (state.connection, Array(state.feeds.values))
        }
        for feed in feeds { feed.close() }
        notificationSink.finish()
        return connection?.flatMap { connection -> EventLoopFuture<Void> in
            connection.close()
            return connection.channel.closeFuture
        }
    }
}
