import DocumentProtocol
import JSONCore
import Testing

/// The `id` of an answer is written as the JSON generator writes it, whatever the id.
@Suite("Response ids")
struct ResponseIDTests {
    /// The answer as it was written before ids had a way of their own: the generator's text.
    private static func generated(_ id: JSONValue) throws -> String {
        let text = try JSONText.make { try id.write(to: $0) }
        return #"{"jsonrpc":"2.0","id":"# + String(decoding: text, as: UTF8.self) + #","result":1}"#
    }

    @Test("an answer's id is the text the generator writes for it, escapes and non-ASCII included")
    func idsAreWrittenAsTheGeneratorWritesThem() throws {
        let ids: [JSONValue] = [
            .null, .number("7"), .number("-12"), .number("1.5e3"), .number("123456789012345678901234567890"),
            .string(""), .string("abc"), .string("a/b"), .string("say \"hi\""), .string("back\\slash"),
            .string("tab\there"), .string("line\nbreak"), .string("\u{1}\u{1f}"), .string("\u{7f}"),
            .string("café ☕ 𝄞"), .string("graph://5C0E6B1A-3F3B-4C55-9C1D-2B7C3D7C9E10/Song/7"),
        ]
        for id in ids {
            let answer = String(decoding: RPCResponse.encode(id: id, .result(Array("1".utf8))), as: UTF8.self)
            #expect(answer == (try Self.generated(id)), "id \(id)")
            // And it reads back as the same id.
            let parsed = try Array(answer.utf8).withUnsafeBytes { try JSONValue.parse($0) }
            #expect(parsed["id"] == id)
        }
    }
}
