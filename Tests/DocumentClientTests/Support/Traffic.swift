import DocumentClient
import GraphCore
import ServerTestSupport

/// What a piece of work cost on the wire: the round trips a ``DocumentClient`` made for it and
/// the bytes of the answers, from the differences of its ``ClientStatistics``.
///
/// ```swift
/// let (songs, traffic) = try Traffic.of(store.client) { try context.fetch(request) }
/// #expect(traffic.requests == 1)
/// ```
struct Traffic: Equatable, CustomStringConvertible {
    /// Requests sent, each one round trip (`hello` of a new connection included).
    var requests: Int
    /// Bytes of answer lines received.
    var bytes: Int

    var description: String { "\(requests) requests, \(bytes) bytes received" }

    static func of<T>(_ client: DocumentClient, _ body: () throws -> T) rethrows -> (T, Traffic) {
        let statistics = client.statistics
        let (requests, bytes) = (statistics.requests, statistics.bytesReceived)
        let result = try body()
        return (result, Traffic(requests: statistics.requests - requests, bytes: statistics.bytesReceived - bytes))
    }

    static func of(_ client: DocumentClient, _ body: () throws -> Void) rethrows -> Traffic {
        try of(client) { () throws -> Int in
            try body()
            return 0
        }.1
    }
}

extension ObjectContext {
    /// The `RemoteStore` of this context's coordinator.
    func remoteStore() throws -> RemoteStore {
        guard let store = coordinator.persistentStores.first as? RemoteStore else {
            throw HarnessError("the context's coordinator has no RemoteStore but \(coordinator.persistentStores.map { type(of: $0) })")
        }
        return store
    }

    /// The client of this context's `RemoteStore`, whose statistics count the round trips.
    func remoteClient() throws -> DocumentClient { try remoteStore().client }
}
