import Foundation
import GraphCore

/// The history of a PostgreSQL store's commits, read by a server that shares the database
/// with others: the number of the last commit, and the commits after a number (what each
/// changed), on connections of its own (not the store's), usable from any thread.
///
/// A call blocks its thread while PostgreSQL answers; calls on several threads at once use
/// several connections (one is made when every one made before is busy).
public final class PostgresHistory: @unchecked Sendable {
    // @unchecked: `idle` is touched only with `lock` held; a session is used by one thread at a time.
    private let address: DatabaseURL
    private let statementTimeoutSeconds: Int
    private let lock = NSLock()
    /// Connections not in use; nil once closed.
    private var idle: [DatabaseSession]? = []

    /// The history of the database at `url` (`postgresql://user:password@host:port/database`).
    /// Nothing is sent before the first call.
    ///
    /// - Throws: ``PostgresStoreError/invalidURL(_:reason:)``.
    public init(url: URL, statementTimeoutSeconds: Int = 30) throws {
        address = try DatabaseURL(url)
        self.statementTimeoutSeconds = statementTimeoutSeconds
    }

    /// The number of the last commit (0 before the first).
    ///
    /// - Throws: ``PostgresStoreError`` (no connection, a statement refused).
    public func latestSequence() throws -> Int64 {
        try withSession { try CommitHistory.latest(session: $0) }
    }

    /// Up to `limit` commits after number `after` (and up to `through`, when given), in order.
    ///
    /// - Throws: ``PostgresStoreError`` (no connection, a statement refused, a damaged row).
    public func commits(after: Int64, through: Int64? = nil, limit: Int = 1000) throws -> [HistoryCommit] {
        try withSession { try CommitHistory.commits(after: after, through: through, limit: limit, session: $0) }
    }

    /// Closes every connection; calls made afterwards fail.
    public func close() {
        let sessions = lock.withLock {
            defer { idle = nil }
            return idle ?? []
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
