import JSONCore

extension RPCError {
    /// The `reason` in `data` when there is one (what was wrong, without the code's words),
    /// else the message.
    public var reason: String {
        if case .string(let reason)? = data["reason"] { return reason }
        return message
    }

    /// The error object of a response: `{"code":…,"message":…,"data":…}` (no `data` when it
    /// is `null`).
    public var wireValue: JSONValue {
        var pairs: [(key: String, value: JSONValue)] = [("code", .integer(Int64(code.rawValue))), ("message", .string(message))]
        if data != .null { pairs.append(("data", data)) }
        return .object(pairs)
    }

    /// Reads the error object of a response.
    ///
    /// - Throws: ``RPCError`` with ``ErrorCode/invalidRequest`` when `value` is not an object
    ///   with an integer `code` and a string `message`.
    public init(wire value: JSONValue) throws(RPCError) {
        guard case .object = value else {
            throw .invalidRequest("an error must be an object, not \(value.kindDescription)")
        }
        guard case .number(let text)? = value["code"], let code = Int(text) else {
            throw .invalidRequest("an error must have an integer \"code\"")
        }
        guard case .string(let message)? = value["message"] else {
            throw .invalidRequest("an error must have a string \"message\"")
        }
        self.init(code: ErrorCode(rawValue: code), message: message, data: value["data"] ?? .null)
    }
}
