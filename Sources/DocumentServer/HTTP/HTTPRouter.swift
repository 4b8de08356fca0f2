import NIOCore
import NIOHTTP1

/// An HTTP request as a route's handler sees it: its head and its whole body (bounded by
/// ``HTTPPortConfiguration/maximumBodyBytes``).
struct HTTPRequest: Sendable {
    let head: HTTPRequestHead
    let body: ByteBuffer

    /// The path without the query.
    var path: Substring { head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
}

/// What a route answers.
struct HTTPAnswer: Sendable {
    var status: HTTPResponseStatus
    var contentType: String
    var body: [UInt8]
    var headers: [(String, String)] = []

    /// A plain text answer: `text` and a new line.
    static func text(_ status: HTTPResponseStatus, _ text: String) -> HTTPAnswer {
        HTTPAnswer(status: status, contentType: "text/plain; charset=utf-8", body: Array((text + "\n").utf8))
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

    /// Handlers by path, then by method name (`HTTPMethod` is not `Hashable`).
    private var routes: [String: [String: Handler]] = [:]

    /// Routes `method` requests for `path` to `handler`.
    mutating func add(_ method: HTTPMethod, _ path: String, _ handler: @escaping Handler) {
        routes[path, default: [:]][method.rawValue] = handler
    }

    /// The answer to `request`.
    func answer(_ request: HTTPRequest) -> HTTPAnswer {
        guard let byMethod = routes[String(request.path)] else {
            return .text(.notFound, "not found: this port serves \(routes.keys.sorted().joined(separator: ", "))")
        }
        let method: HTTPMethod = request.head.method == .HEAD ? .GET : request.head.method
        guard let handler = byMethod[method.rawValue] else {
            var methods = byMethod.keys.sorted()
            if byMethod[HTTPMethod.GET.rawValue] != nil { methods.append("HEAD") }
            var answer = HTTPAnswer.text(.methodNotAllowed, "method not allowed: \(request.path) takes \(methods.joined(separator: ", "))")
            answer.headers.append(("Allow", methods.joined(separator: ", ")))
            return answer
        }
        return handler(request)
    }
}
