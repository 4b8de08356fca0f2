/// The error codes of `docs/PROTOCOL.md`, the same for the server and its clients: the
/// JSON-RPC 2.0 standard codes and the project's own (`-32001`…`-32011`).
///
/// A code a peer sends that this program does not know is ``other(_:)``. Codes read with
/// ``init(rawValue:)`` (as every decoded error's are) are the named case when there is one,
/// so `switch` works; two codes are equal when their numbers are.
///
/// ```swift
/// switch error.code {
/// case .conflict: reread()
/// case .invalidParams, .invalidRequest: fix()
/// default: fail()
/// }
/// ```
public enum ErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// `-32700`: the line is not valid JSON (or not UTF-8).
    case parseError
    /// `-32600`: the message is not a JSON-RPC 2.0 request.
    case invalidRequest
    /// `-32601`: no method of that name.
    case methodNotFound
    /// `-32602`: a parameter is missing, of the wrong type, or names what the model does not have.
    case invalidParams
    /// `-32603`: the server failed in a way the request could not cause.
    case internalError
    /// `-32001`: objects changed since the client read them (optimistic locking).
    case conflict
    /// `-32002`: the changes break the model's rules.
    case validation
    /// `-32003`: a related object does not exist.
    case notFound
    /// `-32004`: no (or a wrong) token.
    case unauthorized
    /// `-32005`: a line, a batch, an answer or the buffered bytes are past their limit.
    case tooLarge
    /// `-32006`: the store cannot be written, or the server is stopping.
    case storeUnavailable
    /// `-32007`: the request ran past its time limit and was stopped; nothing was changed.
    case timeLimitExceeded
    /// `-32008`: the server has its limit of connections open (or is out of file
    /// descriptors); the connection is closed.
    case serverBusy
    /// `-32009`: the `since` of a `subscribe` or `changes` is older than the history the
    /// server keeps; `data.oldest` is the oldest `since` still accepted. Fetch again, then
    /// resume from the `seq` of that answer.
    case historyExpired
    /// `-32010`: a read's `after` names a commit the server has not applied (within its wait,
    /// `--read-after-wait-ms`); `data.after` and `data.applied` say which. Nothing was read.
    case notCaughtUp
    /// `-32011`: the user the connection said `hello` as may not do this (read the entity,
    /// insert, update or delete this object, or call an admin method); `data` names the
    /// entity, the operation and the object. Nothing was changed.
    case forbidden
    /// A code this program does not know (a newer peer's).
    case other(Int)

    /// The code of a number; ``other(_:)`` for a number this program does not know.
    public init(rawValue: Int) {
        switch rawValue {
        case -32700: self = .parseError
        case -32600: self = .invalidRequest
        case -32601: self = .methodNotFound
        case -32602: self = .invalidParams
        case -32603: self = .internalError
        case -32001: self = .conflict
        case -32002: self = .validation
        case -32003: self = .notFound
        case -32004: self = .unauthorized
        case -32005: self = .tooLarge
        case -32006: self = .storeUnavailable
        case -32007: self = .timeLimitExceeded
        case -32008: self = .serverBusy
        case -32009: self = .historyExpired
        case -32010: self = .notCaughtUp
        case -32011: self = .forbidden
        default: self = .other(rawValue)
        }
    }

    /// The number on the wire.
    public var rawValue: Int {
        switch self {
        case .parseError: return -32700
        case .invalidRequest: return -32600
        case .methodNotFound: return -32601
        case .invalidParams: return -32602
        case .internalError: return -32603
        case .conflict: return -32001
        case .validation: return -32002
        case .notFound: return -32003
        case .unauthorized: return -32004
        case .tooLarge: return -32005
        case .storeUnavailable: return -32006
        case .timeLimitExceeded: return -32007
        case .serverBusy: return -32008
        case .historyExpired: return -32009
        case .notCaughtUp: return -32010
        case .forbidden: return -32011
        case .other(let code): return code
        }
    }

    /// Equal numbers.
    public static func == (lhs: ErrorCode, rhs: ErrorCode) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the number.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The number, as the wire writes it.
    public var description: String { String(rawValue) }
}
