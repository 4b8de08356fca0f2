import JSONCore

/// What a method answers: the JSON text of its result, or an error.
public enum Reply: Sendable {
    /// The compact JSON text of the `result` member.
    case result([UInt8])
    /// The error answered.
    case error(RPCError)

    /// A result written with a generator.
    public static func result(_ body: (JSONGenerator) throws -> Void) -> Reply {
        do {
            return .result(try JSONText.make(body))
        } catch let error as AnswerTooLarge {
            return .error(.tooLarge(.answer, limit: error.limit))
        } catch {
            return .error(.storeUnavailable("the answer could not be encoded: \(error)"))
        }
    }
}

/// Thrown by a result's generator once the answer grows past the answer limit, so that a
/// huge answer is never built whole.
package struct AnswerTooLarge: Error {
    package let limit: Int

    package init(limit: Int) {
        self.limit = limit
    }
}

/// Encodes responses: `{"jsonrpc":"2.0","id":…,"result":…}` or `…,"error":{…}}`, compact,
/// keys in that order. A client reads them with ``ServerMessage/parse(_:)``.
public enum RPCResponse {
    private static let prefix = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
    private static let resultKey = Array(#","result":"#.utf8)
    private static let errorKey = Array(#","error":"#.utf8)
    private static let partKey = Array(#","part":"#.utf8)

    /// The bytes of one response (no newline).
    public static func encode(id: JSONValue, _ reply: Reply) -> [UInt8] {
        var bytes: [UInt8] = []
        switch reply {
        case .result(let text): bytes.reserveCapacity(prefix.count + resultKey.count + text.count + 24)
        case .error: break
        }
        bytes += prefix
        appendID(id, to: &bytes)
        switch reply {
        case .result(let text):
            bytes += resultKey
            bytes += text
        case .error(let error):
            bytes += errorKey
            bytes += errorText(error)
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// The bytes of one part of a streamed answer (no newline): `{"jsonrpc":"2.0","id":…,"part":…}`,
    /// `text` the compact JSON of the part. The answer's last line is a response
    /// (``encode(id:_:)``): its `result`, or an error that voids the parts before it.
    public static func encodePart(id: JSONValue, _ text: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(prefix.count + partKey.count + text.count + 24)
        bytes += prefix
        appendID(id, to: &bytes)
        bytes += partKey
        bytes += text
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// The `id` as compact JSON. A number is written as it came and a string without
    /// characters to escape as it is, as the generator would write them, without making one
    /// (the usual ids; a generator costs an allocation per answer).
    static func appendID(_ id: JSONValue, to bytes: inout [UInt8]) {
        switch id {
        case .number(let text):
            bytes += text.utf8
            return
        case .null:
            bytes += "null".utf8
            return
        case .string(let text) where text.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }):
            bytes.append(UInt8(ascii: "\""))
            bytes += text.utf8
            bytes.append(UInt8(ascii: "\""))
            return
        default:
            bytes += (try? JSONText.make { try id.write(to: $0) }) ?? Array("null".utf8)
        }
    }

    /// The compact JSON text of an error object.
    public static func errorText(_ error: RPCError) -> [UInt8] {
        let object = error.wireValue
        return (try? JSONText.make { try object.write(to: $0) }) ?? Array(#"{"code":-32603,"message":"internal error"}"#.utf8)
    }
}
