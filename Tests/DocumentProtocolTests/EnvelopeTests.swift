import DocumentProtocol
import JSONCore
import Testing

/// The envelopes and the error both ends read and write.
@Suite("Envelopes")
struct EnvelopeTests {
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBytes { try JSONValue.parse($0) }
    }

    static func parse(_ text: String) throws -> JSONValue {
        try parse(Array(text.utf8))
    }

    @Test("every code reads back from its number, and an unknown number stays what it was")
    func errorCodesRoundTrip() {
        let known: [ErrorCode] = [.parseError, .invalidRequest, .methodNotFound, .invalidParams, .internalError,
                                  .conflict, .validation, .notFound, .unauthorized, .tooLarge, .storeUnavailable]
        #expect(known.map(\.rawValue) == [-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32006])
        for code in known { #expect(ErrorCode(rawValue: code.rawValue) == code) }
        #expect(ErrorCode(rawValue: -32099) == .other(-32099))
        #expect(ErrorCode.other(-32001) == .conflict)
        let code = ErrorCode(rawValue: -32001)
        switch code {
        case .conflict: break
        default: Issue.record("-32001 read as \(code), not as .conflict")
        }
    }

    @Test("a request a client writes is one the server reads back as written")
    func requestRoundTrip() throws {
        let bytes = try RPCRequest.encode(id: 42, method: "get", params: { out in
            try JSONValue.object([("ids", .array([.string("graph://x/Song/1")]))]).write(to: out)
        })
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"jsonrpc":"2.0","id":42,"method":"get","params":{"ids":["graph://x/Song/1"]}}"#)
        guard case .success(let request) = RPCRequest.parse(try Self.parse(bytes)) else {
            Issue.record("the request was refused")
            return
        }
        #expect(request.id == .integer(42))
        #expect(request.method == "get")
        #expect(request.params == .object([("ids", .array([.string("graph://x/Song/1")]))]))
    }

    @Test("a response the server writes is one a client reads back as written, errors included")
    func responseRoundTrip() throws {
        let answer = RPCResponse.encode(id: .integer(3), .result(Array("[1,2]".utf8)))
        #expect(try ServerMessage.parse(Self.parse(answer)) == .response(id: .integer(3), outcome: .success(.array([.integer(1), .integer(2)]))))

        let error = RPCError(code: .conflict, message: "conflict: changed since read",
                             data: .object([("conflicts", .array([]))]))
        let refusal = RPCResponse.encode(id: .string("a"), .error(error))
        #expect(try ServerMessage.parse(Self.parse(refusal)) == .response(id: .string("a"), outcome: .failure(error)))
        #expect(try RPCError(wire: error.wireValue) == error)
    }

    @Test("an error from a peer with an unknown code and no data reads as other(code) with null data")
    func foreignErrorIsRead() throws {
        let error = try RPCError(wire: Self.parse(#"{"code":-31000,"message":"busy"}"#))
        #expect(error == RPCError(code: .other(-31000), message: "busy", data: .null))
        #expect(error.wireValue.jsonText == #"{"code":-31000,"message":"busy"}"#)
        #expect(error.reason == "busy")
    }

    @Test("a message without an id is a notification, written and read the same")
    func notificationRoundTrip() throws {
        let notification = RPCNotification(method: "changes", params: .object([("seq", .integer(9))]))
        let bytes = try notification.encode()
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"jsonrpc":"2.0","method":"changes","params":{"seq":9}}"#)
        #expect(try ServerMessage.parse(Self.parse(bytes)) == .notification(notification))
        #expect(try ServerMessage.parse(Self.parse(#"{"jsonrpc":"2.0","method":"bye"}"#)) == .notification(RPCNotification(method: "bye")))
    }

    @Test("messages that are neither a response nor a notification are refused with the reason")
    func malformedMessagesAreRefused() throws {
        let cases: [(String, String)] = [
            ("[1]", "a message must be a JSON object, not an array"),
            (#"{"id":1,"result":1}"#, "\"jsonrpc\" must be \"2.0\""),
            (#"{"jsonrpc":"2.0","id":1}"#, "the answer with id 1 has neither result nor error"),
            (#"{"jsonrpc":"2.0","result":1}"#, "a message without \"id\" must be a notification with a string \"method\""),
            (#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#, "an error must have an integer \"code\""),
            (#"{"jsonrpc":"2.0","method":"m","params":[1]}"#, "the \"params\" of notification `m` must be an object, not an array"),
        ]
        for (text, reason) in cases {
            #expect(throws: RPCError.invalidRequest(reason), "\(text)") { try ServerMessage.parse(Self.parse(text)) }
        }
    }
}
