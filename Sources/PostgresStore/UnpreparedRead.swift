import Logging
import PostgresNIO

/// A statement run unprepared (a connection that holds as many prepared statements as it keeps,
/// ``DatabaseSession/preparedLimit``), its rows read as they come (``RowCollector``), as
/// ``PreparedRead`` reads a prepared one's.
enum UnpreparedRead {
    /// Runs `statement` on `connection` and returns its rows, at most `limit` bytes of them,
    /// blocking the calling thread (never one of the event loop's) as
    /// ``PreparedRead/run(name:statement:on:logger:limit:)`` does.
    static func run(_ statement: SQLStatement, on connection: PostgresConnection, logger: Logger, limit: Int?) throws -> [PostgresRow] {
        try WaitingThreadExecutor.run(waitingOn: StatementWait(on: connection)) {
            try await rows(statement, on: connection, logger: logger, limit: limit)
        }
    }

    /// Runs `statement` on `connection` and returns its rows, at most `limit` bytes of them, in
    /// the caller's task.
    static func rows(_ statement: SQLStatement, on connection: PostgresConnection, logger: Logger, limit: Int?) async throws -> [PostgresRow] {
        try await read(statement, on: connection, logger: logger, by: RowCollector(limit: limit))
    }

    /// Runs `statement` on `connection`, its rows read by `consumer` as they come, in the
    /// caller's task.
    static func read<Consumer: RowConsumer>(_ statement: SQLStatement, on connection: PostgresConnection, logger: Logger,
                                            by consumer: Consumer) async throws -> Consumer.Output {
        let query = PostgresQuery(unsafeSQL: statement.text, binds: statement.binds)
        return try await consumer.consume(try await connection.query(query, logger: logger))
    }
}
