import DocumentClient
import Foundation
import JSONAtomicStore
import ServerTestSupport
import Synchronization
import Testing

/// How a `DocumentClient` fails when the other end misbehaves, against a ``ScriptedListener``
/// that answers `hello` and then does what each test needs: drops the connection with a
/// request in flight, never answers, or answers what is not the protocol.
@Suite struct DocumentClientFailureTests {
    private static func client(of listener: ScriptedListener, requestTimeout: Double = 10) -> DocumentClient {
        DocumentClient(configuration: ClientConfiguration(port: listener.port, requestTimeout: requestTimeout))
    }

    /// Drops the connection on the first request other than `hello`, and answers `"pong"` afterwards.
    private static func droppingTheFirstRequest() throws -> ScriptedListener {
        let first = FirstTime()
        return try ScriptedListener { _ in first.check() ? .close : .result(#""pong""#) }
    }

    /// True the first time only.
    private final class FirstTime: Sendable {
        private let passed = Atomic<Bool>(false)
        func check() -> Bool { !passed.exchange(true, ordering: .relaxed) }
    }

    @Test func aSaveInFlightWhenTheConnectionDropsFailsAsLostWithItsOutcomeUnknown() async throws {
        let listener = try Self.droppingTheFirstRequest()
        let client = Self.client(of: listener)
        defer { client.shutdownInBackground() }

        let error = await #expect(throws: DocumentClientError.self) {
            try await client.call("save", params: .object([("insert", .array([]))]))
        }

        guard case .connectionLost(let address, let method, let outcomeUnknown)? = error else {
            Issue.record("expected connectionLost, got \(String(describing: error))")
            return
        }
        #expect(address == "127.0.0.1:\(listener.port)")
        #expect(method == "save")
        #expect(outcomeUnknown)
        #expect(message(of: error).contains("the save may or may not have been applied"))
        #expect(listener.methods == ["hello", "save"], "the save was sent before the connection dropped")

        // The next request connects again.
        _ = try await client.ping()
        #expect(client.statistics.connections == 2)
    }

    @Test func anotherRequestInFlightFailsAsLostWithNothingLeftUnknown() async throws {
        let listener = try Self.droppingTheFirstRequest()
        let client = Self.client(of: listener)
        defer { client.shutdownInBackground() }

        let error = await #expect(throws: DocumentClientError.self) { try await client.ping() }

        guard case .connectionLost(_, let method, let outcomeUnknown)? = error else {
            Issue.record("expected connectionLost, got \(String(describing: error))")
            return
        }
        #expect(method == "ping")
        #expect(!outcomeUnknown)
        #expect(!message(of: error).contains("may or may not"))
    }

    @Test func aRequestNotAnsweredWithinTheRequestTimeoutFailsAsTimedOut() async throws {
        let listener = try ScriptedListener { _ in .silence }
        let client = Self.client(of: listener, requestTimeout: 0.3)
        defer { client.shutdownInBackground() }

        let start = ContinuousClock.now
        let error = await #expect(throws: DocumentClientError.self) { try await client.ping() }
        let waited = ContinuousClock.now - start

        guard case .timedOut(let address, let method, let seconds)? = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        #expect(address == "127.0.0.1:\(listener.port)")
        #expect(method == "ping")
        #expect(seconds == 0.3)
        // Not before the timeout; how long after is not measured here (in a parallel test run the
        // task may resume long after the error), but `seconds` says which timeout it was.
        #expect(waited >= .milliseconds(300), "waited \(waited)")
    }

    @Test(arguments: [
        "this is not JSON",
        #"{"jsonrpc":"2.0","id":999,"result":"pong"}"#,   // the id of no request sent
        #"{"jsonrpc":"2.0","id":2}"#,                     // neither result nor error
        #"{"jsonrpc":"2.0","id":2,"error":{"message":"no code"}}"#,
    ])
    func anAnswerThatBreaksTheProtocolFailsAsAnInvalidResponse(answer: String) async throws {
        let listener = try ScriptedListener { _ in .line(answer) }
        let client = Self.client(of: listener)
        defer { client.shutdownInBackground() }

        let error = await #expect(throws: DocumentClientError.self) { try await client.ping() }

        guard case .invalidResponse(let address, _)? = error else {
            Issue.record("expected invalidResponse, got \(String(describing: error))")
            return
        }
        #expect(address == "127.0.0.1:\(listener.port)")
    }

    @Test func nothingListeningFailsAsCannotConnectAndCountsNoConnection() async throws {
        let port = try unusedPort()
        let client = DocumentClient(configuration: ClientConfiguration(port: port))
        defer { client.shutdownInBackground() }

        let error = await #expect(throws: DocumentClientError.self) { try await client.hello() }

        guard case .cannotConnect(let address, _)? = error else {
            Issue.record("expected cannotConnect, got \(String(describing: error))")
            return
        }
        #expect(address == "127.0.0.1:\(port)")
        #expect(message(of: error).contains("127.0.0.1:\(port)"))
        #expect(client.statistics.connections == 0)
        #expect(client.statistics.requests == 0)
    }
}
