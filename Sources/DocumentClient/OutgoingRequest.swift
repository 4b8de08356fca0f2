import JSONCore
import NIOCore

/// One request on its way to the server: its line and the promise of its answer.
struct OutgoingRequest: Sendable {
    let id: Int64
    let method: String
    /// The request line, `\n` included.
    let line: ByteBuffer
    /// Completed with the `result`, or failed with the server's error or the connection's.
    let response: EventLoopPromise<JSONValue>
}

/// A request's answer did not come in time: the connection is closed, and the request and
/// every one after it fail with ``DocumentClientError/timedOut(address:method:seconds:)``.
struct RequestTimedOut: Sendable {
    let id: Int64
    let method: String
    let seconds: Double
}
