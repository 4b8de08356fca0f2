import JSONCore

/// A message without an `id`: `{"jsonrpc":"2.0","method":…,"params":{…}}`. Nobody answers it.
///
/// The server pushes them for the change feed (`changes` and `resync`, after a `subscribe`)
/// between the answers of a connection. A client hands them to a stream of their own, apart
/// from the answers (see `docs/PROTOCOL.md`, Live changes).
public struct RPCNotification: Sendable, Equatable {
    /// The notification's method (what happened).
    public var method: String
    /// Its parameters: always an object.
    public var params: JSONValue

    /// A notification of `method` with `params` (an object).
    public init(method: String, params: JSONValue = .object([])) {
        self.method = method
        self.params = params
    }

    /// The compact bytes of the notification (no newline).
    public func encode() throws -> [UInt8] {
        let params = self.params
        return try RPCEnvelope.call(id: nil, method: method, params: { try params.write(to: $0) })
    }
}
