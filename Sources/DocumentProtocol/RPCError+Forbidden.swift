import JSONCore

extension RPCError {
    /// `-32011` forbidden: the connection's user may not `operation` (`read`, `insert`,
    /// `update`, `delete`, or an admin method's name) on `entity` (nil for a method), object
    /// `id` when there is one. Nothing was changed.
    package static func forbidden(operation: String, entity: String?, id: String?, reason: String) -> RPCError {
        var data: [(String, JSONValue)] = [("operation", .string(operation))]
        if let entity { data.append(("entity", .string(entity))) }
        if let id { data.append(("id", .string(id))) }
        data.append(("reason", .string(reason)))
        let target = [entity, id].compactMap { $0 }.joined(separator: " ")
        let suffix = operation == "read" ? "" : "; nothing was saved"
        return RPCError(code: Code.forbidden, message: "forbidden: \(operation)\(target.isEmpty ? "" : " " + target): \(reason)\(suffix)",
                        data: .object(data))
    }
}
