import DocumentProtocol
import JSONCore

/// What a server says of itself in answer to `hello`.
public struct ServerHello: Sendable, Equatable {
    /// `docserver`.
    public var server: String
    /// The server's version.
    public var version: String
    /// The protocol version (1).
    public var protocolVersion: Int
    /// The UUID of the store the server serves: every object ID names it.
    public var storeUUID: String
    /// The version hash of the server's model.
    public var modelHash: String
    /// The number of the last commit the server had made when it answered, on connecting
    /// (commits are numbered 1, 2, … ; 0 before the first); nil from a server that does not
    /// number them. A save's own number is in ``RemoteSaveResult/seq``.
    public var seq: Int64?

    init(_ result: JSONValue, address: String) throws(DocumentClientError) {
        func string(_ key: String) throws(DocumentClientError) -> String {
            guard case .string(let text)? = result[key] else {
                throw .invalidResponse(address: address, reason: "the answer to `hello` has no string \(key)")
            }
            return text
        }
        server = try string(HelloMembers.server)
        version = try string(HelloMembers.version)
        storeUUID = try string(HelloMembers.storeUUID)
        modelHash = try string(HelloMembers.modelHash)
        guard case .number(let text)? = result[HelloMembers.protocolVersion], let number = Int(text) else {
            throw .invalidResponse(address: address, reason: "the answer to `hello` has no integer protocol")
        }
        protocolVersion = number
        switch result["seq"] {
        case nil:
            seq = nil
        case .number(let text)? where Int64(text).map({ $0 >= 0 }) == true:
            seq = Int64(text)
        default:
            throw .invalidResponse(address: address, reason: "the answer to `hello` has a seq that is not a non-negative integer")
        }
    }
}
