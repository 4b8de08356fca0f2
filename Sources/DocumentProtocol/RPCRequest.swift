import JSONCore

/// One JSON-RPC 2.0 request or notification, its envelope checked: the server reads it with
/// ``parse(_:)``, a client writes it with ``encode(id:method:params:)``.
public struct RPCRequest: Sendable {
    /// The request's `id`; nil for a notification (no `id` key at all).
    public let id: JSONValue?
    /// The method called.
    public let method: String
    /// The parameters: always an object (an empty one when the request had none).
    public let params: JSONValue

    /// Whether the request has no `id` (and gets no answer).
    public var isNotification: Bool { id == nil }

    /// The compact bytes of a request (no newline):
    /// `{"jsonrpc":"2.0","id":7,"method":"get","params":{…}}`, without `params` when nil.
    public static func encode(id: Int64, method: String, params: ParamsWriter?) throws -> [UInt8] {
        try RPCEnvelope.call(id: id, method: method, params: params)
    }

    /// Checks the envelope of one message.
    ///
    /// - Returns: the request, or the error to answer with and the `id` to answer it under
    ///   (`null` when the id itself could not be read; nil for a notification).
    public static func parse(_ message: JSONValue) -> Result<RPCRequest, Rejection> {
        guard case .object(let pairs) = message else {
            return .failure(Rejection(id: .null, error: .invalidRequest("a request must be a JSON object, not \(message.kindDescription)")))
        }
        var id: JSONValue?
        if let value = message["id"] {
            switch value {
            case .string, .number, .null: id = value
            default:
                return .failure(Rejection(id: .null, error: .invalidRequest("\"id\" must be a string, a number or null, not \(value.kindDescription)")))
            }
        }
        let answerID = id ?? .null
        guard message["jsonrpc"] == .string("2.0") else {
            return .failure(Rejection(id: answerID, error: .invalidRequest("\"jsonrpc\" must be \"2.0\"")))
        }
        guard case .string(let method)? = message["method"] else {
            let found = message["method"].map { "not \($0.kindDescription)" } ?? "missing"
            return .failure(Rejection(id: answerID, error: .invalidRequest("\"method\" must be a string (\(found))")))
        }
        let params = message["params"] ?? .object([])
        if case .object = params {} else {
            return .failure(Rejection(id: answerID, error: .invalidRequest("\"params\" must be an object of named parameters, not \(params.kindDescription)")))
        }
        for (key, _) in pairs where !isEnvelopeMember(key) {
            return .failure(Rejection(id: answerID, error: .invalidRequest("unknown member \"\(RPCError.capped(key))\" (a request has jsonrpc, id, method, params)")))
        }
        return .success(RPCRequest(id: id, method: method, params: params))
    }

    /// Whether `key` is one of the request's members (a switch: no array made per request).
    private static func isEnvelopeMember(_ key: String) -> Bool {
        switch key {
        case "jsonrpc", "id", "method", "params": true
        default: false
        }
    }

    /// A message refused before its method ran.
    public struct Rejection: Error {
        /// The `id` to answer under.
        public let id: JSONValue
        /// The error to answer with.
        public let error: RPCError
    }
}
