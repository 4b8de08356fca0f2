import JSONCore

/// A message from the server as a client reads it: the answer to one of its requests
/// (matched by `id`), or a notification (no `id`).
public enum ServerMessage: Sendable, Equatable {
    /// The answer to the request with this `id`: its `result`, or its error.
    case response(id: JSONValue, outcome: Result<JSONValue, RPCError>)
    /// A message without an `id`, pushed by the server (`changes`, `resync`).
    case notification(RPCNotification)
    /// One part of the streamed answer to the request with this `id` (`fetch` with `stream`);
    /// its ``response(id:outcome:)`` comes after its last part.
    case part(id: JSONValue, JSONValue)

    /// Reads one message.
    ///
    /// - Throws: ``RPCError`` with ``ErrorCode/invalidRequest`` when the message is not a
    ///   JSON-RPC 2.0 response or notification; its `data.reason` says why.
    public static func parse(_ message: JSONValue) throws(RPCError) -> ServerMessage {
        guard case .object = message else {
            throw .invalidRequest("a message must be a JSON object, not \(message.kindDescription)")
        }
        guard message[RPCEnvelope.jsonrpc] == .string(RPCEnvelope.version) else {
            throw .invalidRequest("\"jsonrpc\" must be \"2.0\"")
        }
        guard let id = message[RPCEnvelope.id] else {
            guard case .string(let method)? = message[RPCEnvelope.method] else {
                throw .invalidRequest("a message without \"id\" must be a notification with a string \"method\"")
            }
            let params = message[RPCEnvelope.params] ?? .object([])
            guard case .object = params else {
                throw .invalidRequest("the \"params\" of notification `\(RPCError.capped(method))` must be an object, not \(params.kindDescription)")
            }
            return .notification(RPCNotification(method: method, params: params))
        }
        if let part = message[RPCEnvelope.part] {
            return .part(id: id, part)
        }
        if let error = message[RPCEnvelope.error] {
            return .response(id: id, outcome: .failure(try RPCError(wire: error)))
        }
        guard let result = message[RPCEnvelope.result] else {
            throw .invalidRequest("the answer with id \(RPCError.capped(id.jsonText)) has neither result nor error")
        }
        return .response(id: id, outcome: .success(result))
    }
}
