import DocumentProtocol
import JSONCore
import Testing

/// `GetRequestLine`: the `get` requests it reads straight from their bytes mean what the
/// general path (a JSON tree, then `RPCRequest.parse`) reads in them, and everything else
/// is left to the general path.
@Suite struct GetRequestLineTests {
    private static func read(_ line: String) -> GetRequestLine? {
        Array(line.utf8).withUnsafeBytes { GetRequestLine.read($0) }
    }

    /// Lines the reader takes.
    static let plain: [String] = [
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["graph://S/Song/1"]}}"#,
        #"{"jsonrpc":"2.0","id":-0,"method":"get","params":{"ids":[]}}"#,
        #"{"params":{"ids":["a","b/c","d e"]},"method":"get","id":"x-1 y","jsonrpc":"2.0"}"#,
        #" { "jsonrpc" : "2.0" , "id" : 12345678901234567890 ,"method":"get","params":{ "ids" : [ "graph://S/Song/1" , "graph://S/Album/2" ] } } "#,
        "{\"jsonrpc\":\"2.0\",\"id\":\"\",\"method\":\"get\",\"params\":{\"ids\":[\"\"]}}\r",
        "\t{\"jsonrpc\":\"2.0\",\n\"id\":7,\"method\":\"get\",\"params\":{\"ids\":[\"x\"]}}",
    ]

    /// Lines the reader leaves to the general path: valid requests it does not handle, and
    /// every kind of invalid one.
    static let unusual: [String] = [
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"ids":["a"]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["a"],"versions":[1]}}"#,
        #"{"jsonrpc":"2.0","method":"get","params":{"ids":["a"]}}"#,
        #"{"jsonrpc":"2.0","id":null,"method":"get","params":{"ids":["a"]}}"#,
        #"{"jsonrpc":"2.0","id":1.5,"method":"get","params":{"ids":["a"]}}"#,
        #"{"jsonrpc":"2.0","id":1e3,"method":"get","params":{"ids":["a"]}}"#,
        #"{"jsonrpc":"2.0","id":01,"method":"get","params":{"ids":["a"]}}"#,
        #"{"jsonrpc":"2.0","id":-,"method":"get","params":{"ids":["a"]}}"#,
        #"{"jsonrpc":"2.0","id":123456789012345678901,"method":"get","params":{"ids":["a"]}}"#,
        #"{"jsonrpc":"2.0","id":"a\"b","method":"get","params":{"ids":["a"]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["a\/b"]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["é"]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["a",]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":[1]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":"a"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":[]}"#,
        #"{"jsonrpc":"2.0","id":1,"id":2,"method":"get","params":{"ids":["a"]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["a"]},"extra":1}"#,
        #"{"jsonrpc":"1.0","id":1,"method":"get","params":{"ids":["a"]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"gets","params":{"ids":["a"]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["a"]}}x"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["a"]}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["a"]}},"#,
        #"[{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":["a"]}}]"#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get\",\"params\":{\"ids\":[\"a\tb\"]}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get\",\"params\":{\"ids\":[\"a\u{7F}\"]}}",
        "\u{FEFF}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get\",\"params\":{\"ids\":[\"a\"]}}",
        "", "{", "{}", "null",
    ]

    @Test func aPlainGetMeansWhatTheGeneralPathReadsInIt() throws {
        for line in Self.plain {
            let read = try #require(Self.read(line), "\(line)")
            let bytes = Array(line.utf8)
            let message = try bytes.withUnsafeBytes { try JSONValue.parse($0) }
            guard case .success(let request) = RPCRequest.parse(message) else {
                Issue.record("the general path refused \(line)")
                continue
            }
            #expect(request.method == "get")
            let id = try #require(request.id)
            // The answer's id: the bytes of the line, as the general path writes its id.
            let answered = RPCResponse.encode(id: id, .result(Array("0".utf8)))
            let prefix = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
            #expect(Array(answered.dropFirst(prefix.count).dropLast(#","result":0}"#.utf8.count)) == Array(bytes[read.id]), "\(line)")
            let ids = read.ids.map { String(decoding: bytes[$0], as: UTF8.self) }
            #expect(JSONValue.array(ids.map(JSONValue.string)) == request.params["ids"], "\(line)")
        }
    }

    @Test func anythingElseIsLeftToTheGeneralPath() {
        for line in Self.unusual {
            #expect(Self.read(line) == nil, "\(line)")
        }
    }

    @Test func everyCutOfAPlainGetIsLeftToTheGeneralPath() {
        let line = Self.plain[0]
        for end in 0..<line.utf8.count {
            #expect(Self.read(String(decoding: line.utf8.prefix(end), as: UTF8.self)) == nil)
        }
    }
}
