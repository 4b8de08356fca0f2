import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// One connection to the database, used synchronously: a store's calls block on their
/// statements (store calls are synchronous), on a thread that is not one of the event loop's.
///
/// The connection is made when first needed and made again after it was lost; a statement
/// in flight when it is lost fails with ``PostgresStoreError/connectionFailed(address:reason:)``,
/// even one the connection closed before taking (``StatementWait``).
/// Every statement is bounded by PostgreSQL's `statement_timeout`.
///
/// Not `Sendable`: its store's coordinator makes one call at a time into it.
final class DatabaseSession {
    let address: DatabaseURL
    let statementTimeoutSeconds: Int
    /// What the connection says it is to PostgreSQL (`application_name`, in `pg_stat_activity`).
    let applicationName: String
    private let logger: Logger
    private var connection: PostgresConnection?
    /// The connection that began the transaction in progress, if any.
    private var transactionConnection: PostgresConnection?
    private var nextConnectionID = 0
    /// The names of the statements prepared on `connection`, by their text and parameter types
    /// (``runPrepared(_:)``: a text may bind values it does not use).
    private var preparedNames: [PreparedKey: String] = [:]
    /// The names given on `connection` so far (those given up after a failure included: the
    /// statement may still be prepared there).
    private var nextPreparedName = 0
    /// The most names one connection gives: past them, statements run unprepared (each prepared
    /// one holds memory in PostgreSQL's backend until the connection ends).
    static let preparedLimit = 256

    init(address: DatabaseURL, statementTimeoutSeconds: Int, applicationName: String = "docserver",
         logger: Logger = Logger(label: "PostgresStore")) {
        self.address = address
        self.statementTimeoutSeconds = statementTimeoutSeconds
        self.applicationName = applicationName
        self.logger = logger
    }

    deinit {
        // postgres-nio requires a connection to be closed before it is released.
        close()
    }

    /// Runs one statement with its values bound as parameters, and returns its rows.
    ///
    /// - Throws: ``PostgresStoreError`` (the database's refusal with its SQLSTATE, a lost connection).
    @discardableResult
    func run(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws(PostgresStoreError) -> [PostgresRow] {
        let connection = try open()
        let query = PostgresQuery(unsafeSQL: sql, binds: binds)
        do {
            return try StatementWait.value(of: connection.query(query, logger: logger), on: connection).rows
        } catch {
            throw failure(error, statement: sql)
        }
    }

    /// Runs a statement prepared on the connection, and returns its rows: PostgreSQL parses and
    /// plans it at its first run on a connection, and after that only binds the values (a read
    /// repeated with other values, such as a cache miss, costs its execution alone). Past
    /// ``preparedLimit`` statements, it runs unprepared. With `limit`, the rows are read only as
    /// long as they take at most that many bytes (``RowCollector``).
    ///
    /// - Throws: ``PostgresStoreError`` as ``run(_:_:)`` does;
    ///   ``PostgresStoreError/resultTooLarge(limit:)`` past `limit`.
    func runPrepared(_ statement: SQLStatement, limit: Int? = nil) throws(PostgresStoreError) -> [PostgresRow] {
        // First: a new connection starts its names again.
        let connection = try open()
        let key = statement.preparedKey
        guard let name = preparedNames[key] ?? newPreparedName(for: key) else {
            do {
                return try UnpreparedRead.run(statement, on: connection, logger: logger, limit: limit)
            } catch {
                throw failure(error, statement: statement.text)
            }
        }
        do {
            return try PreparedRead.run(name: name, statement: statement, on: connection, logger: logger, limit: limit)
        } catch {
            // A statement whose preparation failed stays failed under its name on this
            // connection: the next run prepares it again under a new one (not one whose rows
            // only passed their limit: it ran).
            if !(error is PostgresStoreError) { preparedNames[key] = nil }
            throw failure(error, statement: statement.text)
        }
    }

    /// A name for the statement of `key` on this connection, while fewer than ``preparedLimit``
    /// are named; nil past them.
    private func newPreparedName(for key: PreparedKey) -> String? {
        guard nextPreparedName < Self.preparedLimit else { return nil }
        nextPreparedName += 1
        let name = "docserver_\(nextPreparedName)"
        preparedNames[key] = name
        return name
    }

    /// Runs `body` inside a transaction: committed when it returns, rolled back when it throws.
    ///
    /// Every statement of the transaction must run on the connection that began it: when that
    /// connection is lost, the transaction fails (PostgreSQL rolled it back) and no statement
    /// runs on a new connection outside it. A connection lost while `COMMIT` was in flight
    /// leaves the outcome unknown, and the error says so.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        defer { transactionConnection = nil }
        let result = try begun(body)
        try commit()
        return result
    }

    /// Runs `body` inside a transaction, then ends it with the statement `body` returns and
    /// `COMMIT` sent back to back, and returns that statement's rows (none when `body` returns
    /// nil: then `COMMIT` alone ends it).
    ///
    /// The database starts the `COMMIT` as soon as the statement is done, without waiting for
    /// this thread to read the statement's answer and send it: a round trip less at the end of
    /// the transaction, which every other transaction waiting for a lock the statement took
    /// waits for too (``CommitHistory``). When the statement fails, PostgreSQL answers that
    /// `COMMIT` by rolling the transaction back, and the statement's error is thrown, as when
    /// `body` throws.
    func pipelinedTransaction(_ body: () throws -> SQLStatement?) throws -> [PostgresRow] {
        defer { transactionConnection = nil }
        guard let last = try begun(body) else {
            try commit()
            return []
        }
        let connection = try open()
        let answer = connection.query(PostgresQuery(unsafeSQL: last.text, binds: last.binds), logger: logger)
        let ending = connection.query(PostgresQuery(unsafeSQL: "COMMIT"), logger: logger)
        let rows: [PostgresRow]
        do {
            rows = try StatementWait.value(of: answer, on: connection).rows
        } catch {
            // Refused: PostgreSQL rolled the transaction back. The connection lost: the COMMIT
            // was sent, so the outcome is unknown.
            _ = try? StatementWait.value(of: ending, on: connection)
            throw Self.lostDuringCommit(failure(error, statement: last.text))
        }
        let ended: PostgresQueryResult
        do {
            ended = try StatementWait.value(of: ending, on: connection)
        } catch {
            throw Self.lostDuringCommit(failure(error, statement: "COMMIT"))
        }
        // A transaction that failed after all would be answered ROLLBACK, not an error.
        guard ended.metadata.command == "COMMIT" else {
            throw PostgresStoreError.statementFailed(sqlState: nil, message: "the transaction was rolled back (\(ended.metadata.command))",
                                                     statement: "COMMIT")
        }
        return rows
    }

    /// Begins a transaction and runs `body` in it, on the connection that began it; rolls it
    /// back when `body` throws. The caller ends it, and then forgets ``transactionConnection``.
    private func begun<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN")
        transactionConnection = connection
        do {
            return try body()
        } catch {
            if let connection, connection === transactionConnection, !connection.isClosed { _ = try? run("ROLLBACK") }
            throw error
        }
    }

    private func commit() throws(PostgresStoreError) {
        do {
            try run("COMMIT")
        } catch {
            throw Self.lostDuringCommit(error)
        }
    }

    /// `error`, thrown by `COMMIT`, saying that the outcome is unknown when the connection was lost.
    private static func lostDuringCommit(_ error: PostgresStoreError) -> PostgresStoreError {
        guard case .connectionFailed(let address, let reason) = error else { return error }
        return .connectionFailed(address: address, reason: "\(reason); the connection was lost during COMMIT, so the save may or may not have been applied")
    }

    /// Has PostgreSQL send the notifications of `channel` to this session's connection (made
    /// now when needed) and calls `handler` on an event loop thread for each, while that
    /// connection lasts (``isOpen``), with the notification's payload.
    func listen(on channel: String, handler: @escaping @Sendable (String) -> Void) throws(PostgresStoreError) {
        let connection = try open()
        connection.addListener(channel: channel) { _, notification in handler(notification.payload) }
        // A statement after LISTEN: once it is answered, the LISTEN was too.
        try run("SELECT 1")
    }

    /// Whether the connection is made and not lost.
    var isOpen: Bool { connection.map { !$0.isClosed } ?? false }

    /// Closes the connection (a new one is made by the next statement).
    func close() {
        guard let connection else { return }
        self.connection = nil
        if !connection.isClosed { _ = try? connection.close().wait() }
    }

    private func open() throws(PostgresStoreError) -> PostgresConnection {
        if let transactionConnection {
            guard let connection, connection === transactionConnection, !connection.isClosed else {
                throw .connectionFailed(address: address.description, reason: "the connection was lost during a transaction, which PostgreSQL rolled back")
            }
            return connection
        }
        if let connection, !connection.isClosed { return connection }
        connection = nil
        // A new connection has no statement prepared yet.
        preparedNames = [:]
        nextPreparedName = 0
        let group = MultiThreadedEventLoopGroup.singleton
        // Waiting on an event loop's thread would deadlock it (and NIO forbids it).
        if MultiThreadedEventLoopGroup.currentEventLoop != nil { throw .calledOnEventLoop }
        let loop = group.any()
        nextConnectionID += 1
        var configuration = try address.configuration()
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        let made: PostgresConnection
        do {
            made = try PostgresConnection.connect(on: loop, configuration: configuration, id: nextConnectionID, logger: logger).wait()
        } catch {
            throw .connectionFailed(address: address.description, reason: Self.reason(error))
        }
        connection = made
        do {
            for setting in Self.settings(statementTimeoutSeconds: statementTimeoutSeconds) {
                _ = try StatementWait.value(of: made.query(PostgresQuery(unsafeSQL: setting), logger: logger), on: made)
            }
        } catch {
            throw failure(error, statement: "SET statement_timeout")
        }
        return made
    }

    /// The settings every connection of a store starts with: the limit on each statement, and
    /// UTC, so that nothing depends on the database server's zone.
    static func settings(statementTimeoutSeconds: Int) -> [String] {
        ["SET statement_timeout = \(statementTimeoutSeconds * 1000)", "SET TIME ZONE 'UTC'"]
    }

    /// Whether a SQLSTATE says the server ended the connection: class 08 (connection
    /// exception) and 57P01-57P03 (terminated by an administrator, a crash or a shutdown).
    static func endsTheConnection(_ state: String) -> Bool {
        state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
    }

    private func failure(_ error: any Error, statement: String) -> PostgresStoreError {
        let (failure, endsConnection) = Self.failure(error, statement: statement, address: address, statementTimeoutSeconds: statementTimeoutSeconds)
        // The next statement makes a new connection.
        if endsConnection { close() }
        return failure
    }

    /// What `error`, thrown by postgres-nio for `statement`, means to a store, and whether it
    /// ended the connection it ran on.
    static func failure(_ error: any Error, statement: String, address: DatabaseURL,
                        statementTimeoutSeconds: Int) -> (failure: PostgresStoreError, endsConnection: Bool) {
        // The store's own (a result past its limit: the connection read and dropped the rest).
        if let own = error as? PostgresStoreError { return (own, false) }
        if let psql = error as? PSQLError {
            if let info = psql.serverInfo {
                let state = info[.sqlState]
                if state == "57014" { return (.timedOut(seconds: statementTimeoutSeconds, statement: statement), false) }
                if state == "23505", let index = info[.constraintName] { return (.uniqueIndexViolated(index: index, statement: statement), false) }
                var message = info[.message] ?? "no message"
                if let detail = info[.detail] { message += " (\(detail))" }
                if let state, endsTheConnection(state) {
                    // The server ended this connection (pg_terminate_backend, a shutdown).
                    return (.connectionFailed(address: address.description, reason: "\(message) (SQLSTATE \(state))"), true)
                }
                return (.statementFailed(sqlState: state, message: message, statement: statement), false)
            }
            // An error of the connection itself (closed, reset, a TLS shutdown the server did not
            // finish): this connection is done, even when NIO has not seen it close yet (over TLS
            // the close can come after the error).
            return (.connectionFailed(address: address.description, reason: reason(error)), true)
        }
        if error is StatementWait.Stranded { return (.connectionFailed(address: address.description, reason: reason(error)), true) }
        return (.connectionFailed(address: address.description, reason: reason(error)), false)
    }

    static func reason(_ error: any Error) -> String {
        if let psql = error as? PSQLError {
            if let message = psql.serverInfo?[.message] { return message }
            if let underlying = psql.underlying { return String(describing: underlying) }
            return String(describing: psql.code)
        }
        return String(describing: error)
    }
}
