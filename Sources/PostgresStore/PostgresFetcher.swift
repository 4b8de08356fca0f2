import GraphCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// Fetches and reads of objects by ID of a PostgreSQL store made in the caller's task
/// (``GraphCore/DatabaseFetcher``), on connections made on the caller's event loop: the
/// statement's rows arrive on the thread that sent it, and the read goes on there.
///
/// A fetch takes the connection with the fewest statements in flight; while every one has some,
/// a new one is made, up to ``limit`` (past it, postgres-nio queues the statement on the least
/// busy). Statements are prepared once per connection, as ``DatabaseSession`` prepares them.
/// A fetch whose predicate or order SQL cannot say whole is not run here (nil): it needs more
/// than one statement, which a store reader makes.
final class PostgresFetcher: DatabaseFetcher, @unchecked Sendable {
    // @unchecked: `store` (its plans' caches) is used by one serial executor at a time, as
    // ``GraphCore/DatabaseFetcher`` requires; `links` and what each link holds only with `lock`
    // held, never across a wait.
    /// A twin of the server's store, never added to a coordinator: its plans and its reading of rows.
    private let store: PostgresStore
    /// The most connections open at once.
    let limit: Int
    private let lock = NIOLock()
    private var links: [Link] = []
    private var made = 0
    private let logger = Logger(label: "PostgresStore.fetcher")

    /// A connection (made, or being made) and what runs on it.
    private final class Link {
        let connection: EventLoopFuture<PostgresConnection>
        /// Set once made (to see that it closed).
        var made: PostgresConnection?
        var running = 0
        var preparedNames: [PreparedKey: String] = [:]
        var namesGiven = 0
        init(_ connection: EventLoopFuture<PostgresConnection>) { self.connection = connection }
    }

    init(twinOf original: PostgresStore, limit: Int) throws {
        guard let coordinator = original.coordinator else { throw GraphError.store("the store's coordinator is gone") }
        store = try PostgresStore(coordinator: coordinator, configurationName: original.configurationName,
                                  url: original.url, options: original.options)
        store.metadata = original.metadata
        self.limit = max(1, limit)
    }

    deinit { close() }

    func fetchInOneStatement(_ request: FetchRequest) async throws -> (result: StoreFetchResult, through: Int64)? {
        let plan = try store.plan(for: request, readingCommit: true)
        guard plan.description.predicateInSQL, plan.description.sortedAndPagedInSQL else { return nil }
        let rows: [PostgresRow]
        do {
            rows = try await run(plan.statement, limit: plan.counts ? nil : request.resultBytesLimit)
        } catch {
            throw error.ofFetch(of: request.entityName)
        }
        let result = try store.exactResult(of: plan, rows: rows)
        if let through = try store.commit(readBy: plan, in: rows) { return (result, through) }
        // No row: the history's last commit, read after the statement.
        return (result, try await latestCommit())
    }

    func streamInOneStatement(_ request: FetchRequest, receive: ([ObjectSnapshot]) async throws -> Void) async throws
        -> (through: Int64, plan: String)? {
        let plan = try store.plan(for: request, readingCommit: true)
        guard !plan.counts, plan.description.predicateInSQL, plan.description.sortedAndPagedInSQL else { return nil }
        let failure = RowStream.Failure()
        let first: PostgresRow?
        do {
            first = try await withoutActuallyEscaping(receive) { receive in
                let store = self.store
                return try await run(plan.statement, by: RowStream(receive: { rows in
                    try await receive(try store.exactResult(of: plan, rows: rows).snapshots)
                }, failure: failure))
            }
        } catch {
            if let stopped = failure.error { throw stopped }
            throw (error as? PostgresStoreError)?.ofFetch(of: request.entityName) ?? error
        }
        if let first, let through = try store.commit(readBy: plan, in: [first]) { return (through, plan.description.description) }
        // No row: the history's last commit, read after the statement.
        return (try await latestCommit(), plan.description.description)
    }

    func committedSnapshots(of ids: [ObjectID]) async throws -> (snapshots: [ObjectSnapshot], through: Int64) {
        var found = PostgresStore.ObjectsFound()
        for read in try store.objectReads(of: ids) { try found.add(try await run(read.statement), of: read, in: store) }
        if found.latestNeeded { found.add(latest: try await latestCommit()) }
        return found.result
    }

    func fetchEqualities(entityName: String, key: String, values: [String], resultBytesLimit: Int?) async throws
        -> (objects: [[ObjectSnapshot]], through: Int64)? {
        guard !values.isEmpty, let read = try store.equalityRead(entityName: entityName, key: key, values: values) else { return nil }
        let rows: [PostgresRow]
        do {
            rows = try await run(read.statement, limit: resultBytesLimit)
        } catch .resultTooLarge {
            return nil  // each fetch alone, each with its own limit
        }
        let (objects, through) = try store.equalityResult(of: read, rows: rows, count: values.count)
        if let through { return (objects, through) }
        // No row: the history's last commit, read after the statement.
        return (objects, try await latestCommit())
    }

    /// The history's last commit.
    private func latestCommit() async throws -> Int64 {
        let rows = try await run(SQLStatement("SELECT \(CommitHistory.latestExpression)"))
        return try rows.first.flatMap { try ColumnReader.integer($0.makeRandomAccess()[0], what: "max(seq)") } ?? 0
    }

    func close() {
        let closing = lock.withLock {
            defer { links = [] }
            return links
        }
        // postgres-nio requires a connection to be closed before it is released.
        for link in closing { link.connection.whenSuccess(Self.close) }
    }

    /// Starts closing `connection` (the call returns at once). The connection is kept until it
    /// has closed: postgres-nio says goodbye to the database first, and a connection released
    /// before its channel closed fails postgres-nio's assertion (a debug build stops there).
    private static func close(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Runs `statement` (prepared on its connection when it can be) and returns its rows, at
    /// most `limit` bytes of them (``RowCollector``).
    private func run(_ statement: SQLStatement, limit: Int? = nil) async throws(PostgresStoreError) -> [PostgresRow] {
        try await run(statement, by: RowCollector(limit: limit))
    }

    /// Runs `statement` (prepared on its connection when it can be), its rows read by `consumer`.
    private func run<Consumer: RowConsumer>(_ statement: SQLStatement, by consumer: Consumer) async throws(PostgresStoreError) -> Consumer.Output {
        let link = try pick()
        defer { lock.withLock { link.running -= 1 } }
        let connection: PostgresConnection
        do {
            // Made: no wait (an await of a future even once fulfilled hops through the executor).
            if let made = lock.withLock({ link.made }) {
                connection = made
            } else {
                connection = try await link.connection.get()
            }
        } catch {
            drop(link)
            throw .connectionFailed(address: store.address.description, reason: DatabaseSession.reason(error))
        }
        let name = lock.withLock { () -> String? in
            link.made = connection
            return Self.name(for: statement, on: link)
        }
        // Called on the connection's event loop, a connection not closed here still has its
        // handler when the statement is handed to it below (nothing suspends in between), and
        // the handler answers or fails it: a statement is never dropped unanswered (``StatementWait``).
        if connection.isClosed {
            drop(link)
            throw .connectionFailed(address: store.address.description, reason: "the connection closed")
        }
        do {
            guard let name else { return try await UnpreparedRead.read(statement, on: connection, logger: logger, by: consumer) }
            return try await PreparedRead.read(name: name, statement: statement, on: connection, logger: logger, by: consumer)
        } catch {
            // A statement whose preparation failed stays failed under its name on this
            // connection: the next run prepares it again under a new one (not one whose rows
            // only passed their limit: it ran).
            if name != nil, !(error is PostgresStoreError) { lock.withLock { link.preparedNames[statement.preparedKey] = nil } }
            let (failure, endsConnection) = DatabaseSession.failure(error, statement: statement.text, address: store.address,
                                                                    statementTimeoutSeconds: store.statementTimeoutSeconds)
            if endsConnection {
                drop(link)
                Self.close(connection)
            }
            throw failure
        }
    }

    /// The connection for the next statement, counted as running one: the least busy, or a new
    /// one while every one is busy and fewer than ``limit`` are open.
    private func pick() throws(PostgresStoreError) -> Link {
        let chosen = lock.withLock { () -> Link? in
            links.removeAll { $0.made?.isClosed ?? false }
            let idlest = links.min { $0.running < $1.running }
            guard let idlest, idlest.running == 0 || links.count >= limit else { return nil }
            idlest.running += 1
            return idlest
        }
        if let chosen { return chosen }
        let link = Link(try connect())
        lock.withLock {
            link.running = 1
            links.append(link)
        }
        return link
    }

    private func drop(_ link: Link) {
        lock.withLock { links.removeAll { $0 === link } }
    }

    /// A new connection on the caller's event loop (any of the shared group's when the caller
    /// is not on one), with the settings every connection of the store has.
    private func connect() throws(PostgresStoreError) -> EventLoopFuture<PostgresConnection> {
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? MultiThreadedEventLoopGroup.singleton.any()
        var configuration = try store.address.configuration()
        configuration.options.connectTimeout = .seconds(10)
        let id = lock.withLock {
            made += 1
            return made
        }
        let logger = self.logger
        let settings = DatabaseSession.settings(statementTimeoutSeconds: store.statementTimeoutSeconds)
        return PostgresConnection.connect(on: loop, configuration: configuration, id: id, logger: logger).flatMap { connection in
            var done = connection.eventLoop.makeSucceededVoidFuture()
            for setting in settings {
                done = done.flatMap { connection.query(PostgresQuery(unsafeSQL: setting), logger: logger).map { _ in } }
            }
            return done.map { connection }.flatMapError { error in
                let closing: EventLoopFuture<Void> = connection.close()
                return closing.flatMapThrowing {
                    withExtendedLifetime(connection) {}  // kept until it has closed (``close(_:)``)
                    throw error
                }
            }
        }
    }

    /// The name `statement` runs prepared under on `link`'s connection (given now when it is
    /// new); nil past ``DatabaseSession/preparedLimit`` names (it then runs unprepared).
    private static func name(for statement: SQLStatement, on link: Link) -> String? {
        let key = statement.preparedKey
        if let known = link.preparedNames[key] { return known }
        guard link.namesGiven < DatabaseSession.preparedLimit else { return nil }
        link.namesGiven += 1
        let name = "docserver_fetch_\(link.namesGiven)"
        link.preparedNames[key] = name
        return name
    }

}

extension PostgresStore {
    /// A fetcher of this store's objects for one event loop, on connections of its own (at most
    /// `connections`, made on the loop it fetches from as they are needed).
    public func openFetcher(connections: Int) throws -> any DatabaseFetcher {
        try PostgresFetcher(twinOf: self, limit: connections)
    }
}
