import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import PostgresNIO
import PostgresTestSupport
@testable import PostgresStore
import Testing

/// A statement sent from outside the event loop on a connection that has just closed is dropped
/// by postgres-nio without an answer (the channel's handlers are gone): the waiting thread must
/// get an error, not wait forever (`StatementWait`).
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct StatementWaitTests {
    private let logger = Logger(label: "StatementWaitTests")

    /// A connection closed and out of its channel's pipeline, as one is a moment after the
    /// database ended it.
    private func closedConnection() throws -> PostgresConnection {
        let fixture = try PostgresFixture()
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let connection = try PostgresConnection.connect(on: loop, configuration: try fixture.store.session.address.configuration(),
                                                        id: 1, logger: logger).wait()
        try connection.close().wait()
        // NIO takes the handlers out of the pipeline in a later turn of the loop.
        for _ in 0..<3 { try loop.submit {}.wait() }
        return connection
    }

    /// Runs `body` on a thread of its own; whether it ended within `seconds`, and what it threw.
    private func outcome(within seconds: Double, _ body: @escaping @Sendable () throws -> Void) -> (ended: Bool, error: (any Error)?) {
        let ended = DispatchSemaphore(value: 0)
        let thrown = NIOLockedValueBox<(any Error)?>(nil)
        Thread.detachNewThread {
            do { try body() } catch { thrown.withLockedValue { $0 = error } }
            ended.signal()
        }
        let finished = ended.wait(timeout: .now() + seconds) == .success
        return (finished, thrown.withLockedValue { $0 })
    }

    @Test func aQueryOnAConnectionThatClosedFailsInsteadOfWaitingForever() throws {
        let connection = try closedConnection()
        let logger = logger
        let (ended, error) = outcome(within: 10) {
            _ = try StatementWait.value(of: connection.query("SELECT 1", logger: logger), on: connection)
        }
        #expect(ended)
        #expect(error is StatementWait.Stranded, "\(String(describing: error))")
    }

    @Test func aPreparedReadOnAConnectionThatClosedFailsInsteadOfWaitingForever() throws {
        let connection = try closedConnection()
        let logger = logger
        let (ended, error) = outcome(within: 10) {
            _ = try PreparedRead.run(name: "docserver_1", statement: SQLStatement("SELECT 1"), on: connection, logger: logger)
        }
        #expect(ended)
        #expect(error is StatementWait.Stranded, "\(String(describing: error))")
    }

    @Test func aSessionsErrorForAStrandedStatementSaysTheConnectionFailedAndEndsIt() throws {
        let address = try DatabaseURL(try #require(URL(string: "postgres://docserver@127.0.0.1:5432/db")))
        let (failure, endsConnection) = DatabaseSession.failure(StatementWait.Stranded(), statement: "SELECT 1", address: address,
                                                                statementTimeoutSeconds: 5)
        #expect(endsConnection)
        guard case .connectionFailed(_, let reason) = failure else {
            Issue.record("\(failure)")
            return
        }
        #expect(reason.contains("closed before"))
    }

    @Test func aStatementAnsweredSlowlyOnAnOpenConnectionIsWaitedFor() throws {
        // Longer than several wakes of the wait: an open connection is never given up.
        let fixture = try PostgresFixture()
        let rows = try fixture.store.session.run("SELECT pg_sleep(1), 7::bigint")
        #expect(try rows.first?.makeRandomAccess()[1].decode(Int64.self) == 7)
    }
}
