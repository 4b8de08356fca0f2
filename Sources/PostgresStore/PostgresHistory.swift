import Foundation
import GraphCore

/// The history of a PostgreSQL store's commits, read by a server that shares the database
/// with others: the number of the last commit, and the commits after a number (what each
/// changed), on connections of its own (not the store's), usable from any thread.
///
/// A call blocks its thread while PostgreSQL answers; calls on several threads at once use
/// several connections (one is made when every one made before is busy).
public final class PostgresHistory: CommitHistoryReader, @unchecked Sendable {
    // @unchecked: `idle` is touched only with `lock` held; a session is used by one thread at a time.
    private let address: DatabaseURL
    private let statementTimeoutSeconds: Int
    private let lock = NSLock()
    /// Connections not in use; nil once closed.
    private var idle: [DatabaseSession]? = []
    /// The connection that listens for commits, if any.
    private var listener: DatabaseSession?
    /// The commits the listening connection received with their notifications.
    private let notices: CommitNotices
    /// Reads the objects' previous values (none are read without it).
    private let previous: PreviousValuesReader?

    /// The history of the database at `url` (`postgresql://user:password@host:port/database`).
    /// Nothing is sent before the first call. Its commits' objects come without their previous
    /// values (which need the store's model: ``PostgresStore/openCommitHistory()``).
    ///
    /// - Throws: ``PostgresStoreError/invalidURL(_:reason:)``.
    public init(url: URL, statementTimeoutSeconds: Int = 30) throws {
        address = try DatabaseURL(url)
        self.statementTimeoutSeconds = statementTimeoutSeconds
        previous = nil
        notices = CommitNotices(previous: nil)
    }

    init(address: DatabaseURL, statementTimeoutSeconds: Int, previous: PreviousValuesReader?) {
        self.address = address
        self.statementTimeoutSeconds = statementTimeoutSeconds
        self.previous = previous
        notices = CommitNotices(previous: previous)
    }

    /// The number of the last commit (0 before the first).
    ///
    /// - Throws: ``PostgresStoreError`` (no connection, a statement refused).
    public func latestSequence() throws -> Int64 {
        try withSession { try CommitHistory.latest(session: $0) }
    }

    /// Up to `limit` commits after number `after` (and up to `through`, when given), in order:
    /// from the notifications received while listening when they hold them (``CommitNotices``),
    /// else from the history table.
    ///
    /// - Throws: ``PostgresStoreError`` (no connection, a statement refused, a damaged row).
    public func commits(after: Int64, through: Int64? = nil, limit: Int = 1000) throws -> [StoreCommit] {
        if let noticed = notices.commits(after: after, through: through, limit: limit) { return noticed }
        return try withSession { try CommitHistory.commits(after: after, through: through, limit: limit, previous: previous, session: $0) }
    }

    /// Calls `onCommit` (on a thread of postgres-nio's: it must return at once) after each
    /// commit any store on the database writes with history rows (`LISTEN "_graph_commits"`),
    /// with its last number (nil when the notification could not be read), once the commits the
    /// notification carries are kept for ``commits(after:through:limit:)``,
    /// on a connection of its own, while that connection lasts: ``isListening`` says whether
    /// it still does; call again to listen again.
    ///
    /// - Throws: ``PostgresStoreError`` when the connection cannot be made.
    public func listenForCommits(_ onCommit: @escaping @Sendable (_ last: Int64?) -> Void) throws {
        let session = DatabaseSession(address: address, statementTimeoutSeconds: statementTimeoutSeconds,
                                      applicationName: Self.listenerName)
        try session.listen(on: CommitHistory.channel) { [notices] payload in
            onCommit(notices.receive(payload))
        }
        let previous = lock.withLock {
            defer { listener = session }
            return listener
        }
        previous?.close()
    }

    /// The `application_name` of the connection that listens for commits.
    public static let listenerName = "docserver listener"

    /// Whether the connection of ``listenForCommits(_:)`` is there.
    public var isListening: Bool {
        lock.withLock { listener?.isOpen ?? false }
    }

    /// Closes every connection; calls made afterwards fail.
    public func close() {
        let sessions = lock.withLock {
            defer {
                idle = nil
                listener = nil
            }
            return (idle ?? []) + (listener.map { [$0] } ?? [])
        }
        for session in sessions { session.close() }
    }

    private func withSession<T>(_ body: (DatabaseSession) throws -> T) throws -> T {
        let taken = lock.withLock { () -> DatabaseSession?? in
            guard idle != nil else { return .none }
            return .some(idle?.popLast())
        }
        guard let reused = taken else {
            throw PostgresStoreError.connectionFailed(address: address.description, reason: "the history was closed")
        }
        let session = reused ?? DatabaseSession(address: address, statementTimeoutSeconds: statementTimeoutSeconds)
        defer {
            let kept = lock.withLock { () -> Bool in
                guard idle != nil else { return false }
                idle?.append(session)
                return true
            }
            if !kept { session.close() }
        }
        return try body(session)
    }
}
