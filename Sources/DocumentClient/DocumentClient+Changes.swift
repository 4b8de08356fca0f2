import DocumentProtocol
import GraphCore
import JSONCore
import NIOCore

extension DocumentClient {
    /// How many changes a subscription keeps that its reader has not taken yet; past it the
    /// subscription ends with ``DocumentClientError/subscriptionEnded(address:seq:reason:)``.
    public static let changeBufferLimit = 10_000

    /// Subscribes to live changes: one ``ChangeNotification`` per commit that touches what
    /// the subscription watches, in commit order, on a connection of its own (this client's
    /// requests are not held up by it, nor it by them).
    ///
    /// ```swift
    /// for try await change in client.changes(entity: "Song", predicate: "plays > %d", arguments: [.integer(10)]) {
    ///     print(change.seq, change.inserted.map(\.objectID), change.removed)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - entity: the entity watched, with its sub-entities; every entity when nil.
    ///   - predicate: makes a live query (needs `entity`): objects entering the result come as
    ///     ``ChangeNotification/inserted``, those leaving it as ``ChangeNotification/removed``.
    ///     A change to a *related* object alone does not judge an object again.
    ///   - arguments: the predicate's `%@`/`%d`/`%K` arguments, in wire form.
    ///   - since: first every commit after this number, from the server's history, then live
    ///     ones, with no gap and no duplicate; nil: from the latest commit on.
    ///   - includeValues: false to receive objects without their values.
    ///   - model: the model to read objects with; nil reads the server's.
    /// - Returns: a sequence that ends when its task is cancelled or the client shuts down,
    ///   and throws ``DocumentClientError/historyExpired(address:oldest:message:)`` (fetch
    ///   again), ``DocumentClientError/subscriptionEnded(address:seq:reason:)`` (the server or
    ///   this client dropped a slow subscriber), ``DocumentClientError/connectionLost(address:method:outcomeUnknown:)``
    ///   or the server's refusal. After an error, subscribe again with `since:` the last
    ///   ``ChangeNotification/seq`` received: nothing is missed.
    public func changes(entity: String? = nil, predicate: String? = nil, arguments: [JSONValue] = [], since: Int64? = nil,
                        includeValues: Bool = true, model: ObjectModel? = nil) -> AsyncThrowingStream<ChangeNotification, Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: ChangeNotification.self, bufferingPolicy: .bufferingOldest(Self.changeBufferLimit))
        var members: [(key: String, value: JSONValue)] = []
        if let entity { members.append((ChangeMembers.entity, .string(entity))) }
        if let predicate { members.append((ChangeMembers.predicate, .string(predicate))) }
        if !arguments.isEmpty { members.append((ChangeMembers.arguments, .array(arguments))) }
        if let since { members.append((ChangeMembers.since, .integer(since))) }
        if !includeValues { members.append((ChangeMembers.includeValues, .bool(false))) }
        let params = JSONValue.object(members)
        let task = Task {
            do {
                try await self.follow(params, model: model, into: continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func follow(_ params: JSONValue, model given: ObjectModel?, into continuation: AsyncThrowingStream<ChangeNotification, Error>.Continuation) async throws {
        try ensureOpen()
        let address = configuration.address
        let model: ObjectModel
        if let given { model = given } else { model = try await modelFuture().get() }
        let (raw, rawSink) = AsyncStream.makeStream(of: RPCNotification.self, bufferingPolicy: .unbounded)
        // Not counted in `statistics`: those are the request connection's round trips.
        let (connection, _) = try await openConnection(notifications: rawSink, statistics: ClientStatistics()).get()
        guard registerFeed(connection) else {
            connection.close()
            throw DocumentClientError.shutDown
        }
        connection.channel.closeFuture.whenComplete { _ in
            rawSink.finish()
            self.unregisterFeed(connection)
        }
        defer { connection.close() }
        let answer: JSONValue
        do {
            answer = try await connection.call(ProtocolMethod.subscribe.rawValue, params: { try params.write(to: $0) }).get()
        } catch DocumentClientError.server(let error) where error.code == .historyExpired {
            var oldest: Int64?
            if case .number(let text)? = error.data?["oldest"] { oldest = Int64(text) }
            throw DocumentClientError.historyExpired(address: address, oldest: oldest, message: error.message)
        }
        guard case .number(let text)? = answer[ChangeMembers.subscription], let subscription = Int64(text) else {
            throw DocumentClientError.invalidResponse(address: address, reason: "the answer to `subscribe` has no integer subscription")
        }
        var lastSeq: Int64?
        if case .number(let text)? = answer[ChangeMembers.seq] { lastSeq = Int64(text) }
        var reader = WireObjectReader(model: model, address: address)
        for await notification in raw {
            switch notification.method {
            case ChangeMembers.changesNotification:
                let change = try ChangeNotification(wire: notification.params, reader: &reader, at: "a changes notification")
                guard change.subscription == nil || change.subscription == subscription else { continue }
                if case .dropped = continuation.yield(change) {
                    throw DocumentClientError.subscriptionEnded(
                        address: address, seq: lastSeq,
                        reason: "this client kept \(Self.changeBufferLimit) changes its reader had not taken")
                }
                lastSeq = change.seq
            case ChangeMembers.resyncNotification:
                if case .number(let text)? = notification.params[ChangeMembers.subscription], Int64(text) != subscription { continue }
                var seq = lastSeq
                if case .number(let text)? = notification.params[ChangeMembers.seq] { seq = Int64(text) }
                var reason = "the server's buffer for it was full"
                if case .string(let text)? = notification.params[ChangeMembers.reason] { reason = text }
                throw DocumentClientError.subscriptionEnded(address: address, seq: seq, reason: reason)
            default:
                continue
            }
        }
        if Task.isCancelled { return }
        try ensureOpen()
        throw DocumentClientError.connectionLost(address: address, method: "subscribe", outcomeUnknown: false)
    }
}
