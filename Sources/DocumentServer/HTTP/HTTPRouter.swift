import NIOCore
import NIOHTTP1

/// An HTTP request as a route's handler sees it: its head and its whole body (bounded by
/// ``HTTPPortConfiguration/maximumBodyBytes``).
struct HTTPRequest: Sendable {
    let head: HTTPRequestHead
    let body: ByteBuffer
    /// The client's IP address ("unknown" when the socket has none): what a `hello`'s throttle counts by.
    var address = "unknown"

    /// The path without the query.
    var path: Substring { head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
}

/// What a route answers.
struct HTTPAnswer: Sendable {
    var status: HTTPResponseStatus
    var contentType: String
    var body: [UInt8]
    var headers: [(String, String)] = []
    /// Close the connection once this answer is written (a `POST /rpc` with a wrong token).
    var close = false

    /// A plain text answer: `text` and a new line.
    static func text(_ status: HTTPResponseStatus, _ text: String) -> HTTPAnswer {
        HTTPAnswer(status: status, contentType: "text/plain; charset=utf-8", body: Array((text + "\n").utf8))
    }

    /// A JSON answer (`POST /rpc`).
    static func json(_ status: HTTPResponseStatus, _ body: [UInt8], close: Bool) -> HTTPAnswer {
        HTTPAnswer(status: status, contentType: "application/json", body: body, close: close)
    }
}

/// The HTTP port's routes: a method and an exact path to a handler. An unknown path is
/// answered 404, a known path asked with another method 405 (with `Allow`); `HEAD` is
/// answered as `GET` without the body. Adding an endpoint (`/rpc`, say) is one ``add(_:_:_:)``.
///
/// Handlers run on the connection's event loop and must not block: they answer from figures
/// read at once (the published state, atomics, file sizes).
struct HTTPRouter: Sendable {
    typealias Handler = @Sendable (HTTPRequest) -> HTTPAnswer
    /// A handler whose answer comes later (`POST /rpc` waits for the engine); it runs on `EventLoop`, the connection's.
    typealias DeferredHandler = @Sendable (HTTPRequest, EventLoop) -> EventLoopFuture<HTTPAnswer>

    /// Handlers by path, then by method name (`HTTPMethod` is not `Hashable`).
    private var routes: [String: [String: DeferredHandler]] = [:]

    /// Routes `method` requests for `path` to `handler`.
    mutating func add(_ method: HTTPMethod, _ path: String, _ handler: @escaping Handler) {
        routes[path, default: [:]][method.rawValue] = { request, loop in loop.makeSucceededFuture(handler(request)) }
    }

    /// Routes `method` requests for `path` to `handler`, whose answer comes later.
    mutating func add(_ method: HTTPMethod, _ path: String, deferred handler: @escaping DeferredHandler) {
        routes[path, default: [:]][method.rawValue] = handler
    }

    /// The answer to `request`, on `loop`.
    func answer(_ request: HTTPRequest, on loop: EventLoop) -> EventLoopFuture<HTTPAnswer> {
        guard let byMethod = routes[String(request.path)] else {
            return loop.makeSucceededFuture(.text(.notFound, "not found: this port serves \(routes.keys.filter { !$0.hasPrefix("/docstore/") }.sorted().joined(separator: ", ")) and the page's client under /docstore/"))
        }
        let method: HTTPMethod = request.head.method == .HEAD ? .GET : request.head.method
        guard let handler = byMethod[method.rawValue] else {
            var methods = byMethod.keys.sorted()
            if byMethod[HTTPMethod.GET.rawValue] != nil { methods.append("HEAD") }
            var answer = HTTPAnswer.text(.methodNotAllowed, "method not allowed: \(request.path) takes \(methods.joined(separator: ", "))")
            answer.headers.append(("Allow", methods.joined(separator: ", ")))
            return loop.makeSucceededFuture(answer)
        }
        return handler(request, loop)
    }
}
