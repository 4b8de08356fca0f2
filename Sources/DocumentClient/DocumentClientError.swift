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
