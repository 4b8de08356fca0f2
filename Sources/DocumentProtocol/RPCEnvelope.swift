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
    /// `"part"`: one part of a streamed answer, before its `result` (`fetch` with `stream`).
    public static let part = "part"

    /// The bytes of a request (with `id`) or a notification (without): `jsonrpc`, `id`,
    /// `method`, then `params` when there are any.
    static func call(id: Int64?, method: String, params: ParamsWriter?) throws -> [UInt8] {
        try JSONText.make { out in
            try out.openObject()
            try out.string(jsonrpc)
            try out.string(version)
            if let id {
                try out.string(Self.id)
                try out.integer(id)
            }
            try out.string(Self.method)
            try out.string(method)
            if let params {
                try out.string(Self.params)
                try params(out)
            }
            try out.closeObject()
        }
    }
}

/// Writes a request's `params` object.
public typealias ParamsWriter = @Sendable (JSONGenerator) throws -> Void
