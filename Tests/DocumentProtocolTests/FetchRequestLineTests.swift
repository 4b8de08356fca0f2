import DocumentProtocol
import JSONCore
import Testing

/// `FetchRequestLine`: the `fetch` requests it reads straight from their bytes mean what the
/// general path (a JSON tree) reads in them, and everything else is left to the general path.
@Suite struct FetchRequestLineTests {
    private static func read(_ line: String) -> FetchRequestLine? {
        Array(line.utf8).withUnsafeBytes { FetchRequestLine.read($0) }
    }

    private static func text(_ line: String, _ range: Range<Int>?) -> String? {
        range.map { String(decoding: Array(line.utf8)[$0], as: UTF8.self) }
    }

    @Test func aPlainFetchIsReadWithEachOfItsMembers() throws {
        let line = #" { "params" : { "offset" : 2 , "arguments" : [ "a b" , -9223372036854775808 , 0 ] , "entity" : "Song" ,"#
            + #" "resultType" : "ids" , "limit" : 9223372036854775807 , "predicate" : "title == %@ AND plays > %d" } ,"#
            + #" "method" : "fetch" , "id" : "r-1" , "jsonrpc" : "2.0" } "#
        let request = try #require(Self.read(line))
        #expect(Self.text(line, request.id) == #""r-1""#)
        #expect(Self.text(line, request.entity) == "Song")
        #expect(Self.text(line, request.predicate) == "title == %@ AND plays > %d")
        #expect(Self.text(line, request.resultType) == "ids")
        #expect(request.limit == Int.max && request.offset == 2)
        guard request.arguments.count == 3, case .string(let range) = request.arguments[0] else {
            Issue.record("arguments: \(request.arguments)")
            return
        }
        #expect(Self.text(line, range) == "a b")
        #expect(Array(request.arguments[1...]) == [.integer(.min), .integer(0)])

        let bare = try #require(Self.read(#"{"jsonrpc":"2.0","id":7,"method":"fetch","params":{"entity":"Song"}}"#))
        #expect(bare.predicate == nil && bare.arguments.isEmpty && bare.limit == nil && bare.offset == nil && bare.resultType == nil)
    }

    /// Lines the reader leaves to the general path: valid requests it does not handle, and
    /// every kind of invalid one.
    static let unusual: [String] = [
        #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"entity":"Song"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"predicate":"a == 1"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","entity":"Song"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","limit":1,"limit":1}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","sort":[{"key":"plays"}]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","explain":true}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":null}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"a == %@","arguments":[1.5]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"a == %@","arguments":[1e2]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"a == %@","arguments":[9223372036854775808]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"a == %@","arguments":[true]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"a == %@","arguments":[null]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"a == %@","arguments":[[1]]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"a == %@","arguments":[{"date":0}]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"a == %@","arguments":["\u0041"]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"a == %@","arguments":["é"]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"a == %@","arguments":[1,]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"a == \"x\""}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","limit":-1}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","offset":1.0}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","limit":99999999999999999999}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","resultType":1}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song"},"extra":1}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song"}} x"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song",}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":Song}}"#,
        #"[{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song"}}]"#,
    ]

    @Test(arguments: unusual) func unusualOrInvalidFetchesAreDeclined(_ line: String) {
        #expect(Self.read(line) == nil)
    }

    /// Whatever the reader takes is JSON the general path reads as the same request.
    @Test func whatTheReaderTakesParsesAsJSON() throws {
        let line = #"{"jsonrpc":"2.0","id":3,"method":"fetch","params":{"entity":"Song","predicate":"plays == %d","arguments":[5],"limit":1}}"#
        #expect(Self.read(line) != nil)
        let tree = try Array(line.utf8).withUnsafeBytes { try JSONValue.parse($0) }
        #expect(tree["params"]?["arguments"] == .array([.number("5")]))
    }
}
