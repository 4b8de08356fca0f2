import DocumentClient
import GraphCore
import Testing

/// How a subscription (`DocumentClient.changes`) ends when the server refuses or ends it,
/// played by a scripted server: the feed's connection sends `hello` (id 1), then `subscribe` (id 2).
@Suite(.timeLimit(.minutes(1))) struct ChangeStreamFailureTests {
    private static let model: ObjectModel? = try? ObjectModel(entities: [
        EntityDescription("Song", attributes: [AttributeDescription("title", .string)]),
    ])

    private static func firstError(_ script: @escaping @Sendable (String) -> ScriptedListener.Reply) async throws -> DocumentClientError? {
        let model = try #require(Self.model)
        let listener = try ScriptedListener(modelHash: model.versionHash, script: script)
        let client = DocumentClient(configuration: ClientConfiguration(port: listener.port, requestTimeout: 10))
        defer { client.shutdownInBackground() }
        do {
            for try await _ in client.changes(since: 3, model: model) {}
            return nil
        } catch let error as DocumentClientError {
            return error
        }
    }

    @Test func anExpiredSinceIsHistoryExpiredWithTheOldestSinceAccepted() async throws {
        let error = try await Self.firstError { method in
            method == "subscribe"
                ? .line(#"{"jsonrpc":"2.0","id":2,"error":{"code":-32009,"message":"history expired","data":{"since":3,"oldest":7}}}"#)
                : .silence
        }
        guard case .historyExpired(_, let oldest, _)? = error else {
            Issue.record("expected historyExpired, got \(String(describing: error))")
            return
        }
        #expect(oldest == 7)
        #expect(error.map { "\($0)" }?.contains("fetch the objects again") == true)
    }

    @Test func aResyncEndsTheSubscriptionSayingWhereToResume() async throws {
        let error = try await Self.firstError { method in
            method == "subscribe"
                ? .line(#"{"jsonrpc":"2.0","id":2,"result":{"subscription":1,"seq":3}}"# + "\n"
                    + #"{"jsonrpc":"2.0","method":"resync","params":{"subscription":1,"seq":3,"reason":"the buffer was full"}}"#)
                : .silence
        }
        guard case .subscriptionEnded(_, let seq, let reason)? = error else {
            Issue.record("expected subscriptionEnded, got \(String(describing: error))")
            return
        }
        #expect(seq == 3 && reason == "the buffer was full")
        #expect(error.map { "\($0)" }?.contains("since: 3") == true)
    }

    @Test func aClosedConnectionEndsTheSubscriptionWithConnectionLost() async throws {
        let error = try await Self.firstError { method in
            method == "subscribe" ? .lineThenClose(#"{"jsonrpc":"2.0","id":2,"result":{"subscription":1,"seq":3}}"#) : .silence
        }
        guard case .connectionLost(_, let method, false)? = error else {
            Issue.record("expected connectionLost, got \(String(describing: error))")
            return
        }
        #expect(method == "subscribe")
    }
}
