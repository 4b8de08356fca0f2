import PostgresTestSupport
import Testing

extension PostgresCluster {
    /// The message of a test skipped because PostgreSQL is missing.
    static var skipMessage: Comment { Comment(rawValue: skipReason) }
}
