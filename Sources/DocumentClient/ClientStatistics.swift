import Synchronization

/// What a client has done so far, for benchmarks, tests and logs: its requests and their
/// connections (the connections of subscriptions to live changes are not counted).
public final class ClientStatistics: Sendable {
    private let requestsSent = Atomic<Int>(0)
    private let connectionsMade = Atomic<Int>(0)
    private let bytesRead = Atomic<Int>(0)

    init() {}

    /// Requests sent, `hello` included: each is one round trip.
    public var requests: Int { requestsSent.load(ordering: .relaxed) }
    /// Connections made (attempts that could not connect are not counted).
    public var connections: Int { connectionsMade.load(ordering: .relaxed) }
    /// Bytes of answers received.
    public var bytesReceived: Int { bytesRead.load(ordering: .relaxed) }

    func countRequest() { requestsSent.add(1, ordering: .relaxed) }
    func countConnection() { connectionsMade.add(1, ordering: .relaxed) }
    func countReceived(_ bytes: Int) { bytesRead.add(bytes, ordering: .relaxed) }
}
