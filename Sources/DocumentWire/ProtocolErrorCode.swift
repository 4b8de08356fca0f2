/// The error codes of `docs/PROTOCOL.md`, the same for the server and its clients.
public enum ProtocolErrorCode {
    /// The line is not valid JSON (or not UTF-8).
    public static let parseError = -32700
    /// The message is not a JSON-RPC 2.0 request.
    public static let invalidRequest = -32600
    /// No method of that name.
    public static let methodNotFound = -32601
    /// A parameter is missing, of the wrong type, or names what the model does not have.
    public static let invalidParams = -32602
    /// Objects changed since the client read them (optimistic locking).
    public static let conflict = -32001
    /// The changes break the model's rules.
    public static let validation = -32002
    /// A related object does not exist.
    public static let notFound = -32003
    /// No (or a wrong) token.
    public static let unauthorized = -32004
    /// The line is longer than the limit.
    public static let tooLarge = -32005
    /// The store cannot be written, or the server is stopping.
    public static let storeUnavailable = -32006
    /// The request ran past the server's request time limit and was stopped; it had no effect.
    public static let timeLimitExceeded = -32007
}
