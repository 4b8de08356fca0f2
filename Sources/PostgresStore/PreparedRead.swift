import Logging
import PostgresNIO

/// A statement known only when the store runs (its text depends on the model), run through
/// postgres-nio's prepared statements: postgres-nio prepares a statement on a connection at its
/// first run under its name, and then only binds and executes it.
///
/// postgres-nio names a prepared statement's text by its type (``PostgresPreparedStatement``'s
/// static `name` and `sql`), which it reads while the run is started and when it reports an
/// error, within the run's task: here they come from a task-local value set for that run.
struct PreparedRead: PostgresPreparedStatement {
    typealias Row = PostgresRow

    /// The name, text and parameter types of the statement the current task runs.
    @TaskLocal static var current = (name: "", sql: "", types: [PostgresDataType]())

    static var name: String { current.name }
    static var sql: String { current.sql }
    static var bindingDataTypes: [PostgresDataType] { current.types }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }

    /// Runs `statement` prepared as `name` on `connection` and returns its rows (at most
    /// `limit` bytes of them: ``RowCollector``), blocking the calling thread (never one of the
    /// event loop's) until they have all come or the connection has closed without sending them
    /// (``StatementWait``).
    static func run(name: String, statement: SQLStatement, on connection: PostgresConnection, logger: Logger,
                    limit: Int? = nil) throws -> [PostgresRow] {
        try WaitingThreadExecutor.run(waitingOn: StatementWait(on: connection)) {
            try await rows(name: name, statement: statement, on: connection, logger: logger, limit: limit)
        }
    }

    /// Runs `statement` prepared as `name` on `connection` and returns its rows (at most `limit`
    /// bytes of them), in the caller's task.
    static func rows(name: String, statement: SQLStatement, on connection: PostgresConnection, logger: Logger,
                     limit: Int? = nil) async throws -> [PostgresRow] {
        try await read(name: name, statement: statement, on: connection, logger: logger, by: RowCollector(limit: limit))
    }

    /// Runs `statement` prepared as `name` on `connection`, its rows read by `consumer` as they
    /// come, in the caller's task.
    static func read<Consumer: RowConsumer>(name: String, statement: SQLStatement, on connection: PostgresConnection, logger: Logger,
                                            by consumer: Consumer) async throws -> Consumer.Output {
        let read = PreparedRead(bindings: statement.binds)
        let values = (name: name, sql: statement.text, types: statement.parameterTypes)
        return try await $current.withValue(values) {
            try await consumer.consume(try await connection.execute(read, logger: logger))
        }
    }
}
