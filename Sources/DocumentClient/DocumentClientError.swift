import DocumentProtocol
import JSONCore

/// What went wrong talking to a `docserver`. Every case says where (the server's address)
/// and what a user can do about it.
public enum DocumentClientError: Error, CustomStringConvertible, Sendable {
    /// The URL is not `docstore://host:port`.
    case invalidURL(String, reason: String)
    /// A store option has a value that cannot be used.
    case invalidOption(name: String, value: String, expected: String)
    /// No connection could be made (refused, unreachable, timed out).
    case cannotConnect(address: String, reason: String)
    /// The connection closed before the answer to `method` arrived. For `save`,
    /// `outcomeUnknown` is true: the save may or may not have been applied.
    case connectionLost(address: String, method: String, outcomeUnknown: Bool)
    /// No answer to `method` within the request timeout; the connection is closed.
    case timedOut(address: String, method: String, seconds: Double)
    /// The server answered with an error.
    case server(RemoteError)
    /// The server's answer does not follow the protocol.
    case invalidResponse(address: String, reason: String)
    /// A blocking call was made on the client's own event loop, where it would wait forever.
    case calledOnEventLoop(method: String)
    /// The client was shut down.
    case shutDown
    /// A subscription asked for commits after a `since` older than the history the server
    /// keeps (`-32009`); `oldest` is the oldest `since` still accepted. Changes were missed:
    /// fetch again, then subscribe without `since`.
    case historyExpired(address: String, oldest: Int64?, message: String)
    /// The subscription ended because its reader did not keep up (the server's `resync`, or
    /// this client's buffer of ``DocumentClient/changeBufferLimit`` changes was full); every
    /// change up to `seq` was delivered. Subscribe again with `since: seq`.
    case subscriptionEnded(address: String, seq: Int64?, reason: String)

    /// What went wrong, where, and what to do about it, in a sentence.
    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "invalid docserver URL \"\(url)\": \(reason) (expected docstore://host:port)"
        case .invalidOption(let name, let value, let expected):
            return "invalid store option \(name)=\"\(value)\": expected \(expected)"
        case .cannotConnect(let address, let reason):
            return "cannot connect to docserver at \(address): \(reason)"
        case .connectionLost(let address, let method, let outcomeUnknown):
            let outcome = outcomeUnknown
                ? "; the save may or may not have been applied: re-read the objects before saving again"
                : ""
            return "the connection to docserver at \(address) was lost before `\(method)` was answered\(outcome)"
        case .timedOut(let address, let method, let seconds):
            let outcome = method == "save"
                ? "; the save may or may not have been applied: re-read the objects before saving again"
                : ""
            return "docserver at \(address) did not answer `\(method)` within \(seconds) s; the connection was closed\(outcome)"
        case .server(let error):
            return error.description
        case .invalidResponse(let address, let reason):
            return "docserver at \(address) sent an answer that does not follow the protocol: \(reason)"
        case .calledOnEventLoop(let method):
            return "`\(method)` was called on the client's event loop, where waiting for its answer would never end"
        case .shutDown:
            return "the docserver client was shut down"
        case .historyExpired(let address, let oldest, let message):
            let oldestText = oldest.map { " (the oldest since it accepts is \($0))" } ?? ""
            return "docserver at \(address) no longer keeps the changes asked for\(oldestText): \(message); fetch the objects again and subscribe without since"
        case .subscriptionEnded(let address, let seq, let reason):
            let resume = seq.map { "subscribe again with since: \($0) to get the rest" } ?? "subscribe again"
            return "the subscription to docserver at \(address) ended: \(reason); every change up to seq \(seq.map(String.init) ?? "?") was delivered: \(resume)"
        }
    }
}

/// An error answer of the server: the protocol's `RPCError` (code, message, data, as
/// PROTOCOL.md lists them) and the method it answered.
public struct RemoteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The error as the server sent it.
    public let error: RPCError
    /// The method that failed.
    public let method: String

    /// The codes, by name: `RemoteError.Code.conflict`.
    public typealias Code = ErrorCode

    /// The server's `error` answering `method`.
    public init(_ error: RPCError, method: String) {
        self.error = error
        self.method = method
    }

    /// The error code (`.conflict`, `.invalidParams`, …; `ErrorCode.other(_:)` for one this
    /// client does not know).
    public var code: ErrorCode { error.code }
    /// The server's sentence for people.
    public var message: String { error.message }
    /// The error's `data`, if any.
    public var data: JSONValue? { error.data == .null ? nil : error.data }

    /// `docserver refused `save` (-32001): conflict: …`.
    public var description: String { "docserver refused `\(method)` (\(code)): \(message)" }
}
