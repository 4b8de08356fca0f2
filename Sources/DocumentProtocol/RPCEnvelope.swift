import JSONCore

/// The member names of JSON-RPC 2.0 messages, and the parameters writer both ends use.
public enum RPCEnvelope {
    /// `"jsonrpc"`, whose value is ``version``.
    public static let jsonrpc = "jsonrpc"
    /// `"2.0"`.
    public static let version = "2.0"
    /// `"id"`: present in requests and their responses, absent in notifications.
    public static let id = "id"
    /// `"method"`.
    public static let method = "method"
    /// `"params"`: an object of named parameters.
    public static let params = "params"
    /// `"result"`.
    public static let result = "result"
    /// `"error"`.
    public static let error = "error"
}

/// Writes a request's `params` object.
public typealias ParamsWriter = @Sendable (JSONGenerator) throws -> Void
