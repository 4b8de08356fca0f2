import Foundation
import NIOCore
import PostgresNIO

/// A thread's wait for a statement's answer that ends when the connection it was sent on has
/// closed without answering it.
///
/// postgres-nio hands a statement sent from outside the event loop to its connection's handler
/// in a task on the loop. When the channel closed in between and NIO has already taken the
/// handlers out of its pipeline, the statement is dropped and its answer never comes: a reader's
/// or writer's thread would wait forever (seen once: a read sent just as `pg_terminate_backend`
/// ended the connection). On the loop itself this cannot happen (a channel that is not closed
/// still has its handlers, and the statement reaches them at once), so only threads that are not
/// the loop's wait here.
///
/// The wait wakes every ``patience`` while no answer has come; once the connection has been seen
/// closed on two wakes in a row, the statement is given up (``Stranded``). A statement the
/// handler did receive is failed by it in the same turn of the loop that closes the connection,
/// long before that.
struct StatementWait {
    /// How often a wait without an answer looks at its connection.
    static let patience: TimeInterval = 0.25

    /// Thrown for a statement given up because its connection closed without answering it.
    struct Stranded: Error, CustomStringConvertible {
        var description: String { "the connection closed before the statement's answer came" }
    }

    private let connection: PostgresConnection
    private var seenClosed = false

    init(on connection: PostgresConnection) { self.connection = connection }

    /// Waits on `condition` (locked by the caller, and locked again when this returns or
    /// throws) while `pending` holds, giving the statement up once the connection has been seen
    /// closed on two wakes in a row.
    ///
    /// - Throws: ``Stranded``.
    mutating func wait(on condition: NSCondition, while pending: () -> Bool) throws {
        while pending() {
            if condition.wait(until: Date(timeIntervalSinceNow: Self.patience)) { continue }
            if pending(), givesUp() { throw Stranded() }
        }
    }

    /// Called each time the wait wakes without an answer: whether to give the statement up.
    private mutating func givesUp() -> Bool {
        guard connection.isClosed else {
            seenClosed = false
            return false
        }
        defer { seenClosed = true }
        return seenClosed
    }

    /// The value of `future`, an answer of a statement sent on `connection`, waited for on this
    /// thread (never one of the event loop's).
    ///
    /// - Throws: the statement's error, or ``Stranded``.
    static func value<T: Sendable>(of future: EventLoopFuture<T>, on connection: PostgresConnection) throws -> T {
        let answer = Answer<T>()
        future.whenComplete { answer.set($0) }
        var wait = StatementWait(on: connection)
        answer.condition.lock()
        defer { answer.condition.unlock() }
        try wait.wait(on: answer.condition) { answer.result == nil }
        // Set before the wait ended.
        guard let result = answer.result else { throw Stranded() }
        return try result.get()
    }
}

/// The answer ``StatementWait/value(of:on:)`` waits for: set on the event loop, read by the
/// waiting thread, both with `condition` locked.
private final class Answer<T>: @unchecked Sendable {
    let condition = NSCondition()
    var result: Result<T, any Error>?

    func set(_ result: Result<T, any Error>) {
        condition.lock()
        self.result = result
        condition.signal()
        condition.unlock()
    }
}
