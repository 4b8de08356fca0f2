/// A `get` request read straight from its line, without building a JSON tree: the server's
/// fast path for its most frequent request.
///
/// ``read(_:)`` accepts only a plain request that the general path
/// (`JSONValue.parse`, then ``RPCRequest/parse(_:)``) would accept with the same meaning:
/// one JSON object with the members `jsonrpc` (`"2.0"`), `id` (an integer, or a string of
/// printable ASCII without escapes), `method` (`"get"`) and `params` (an object holding only
/// `ids`, an array of such strings), each once, in any order, with JSON whitespace between
/// the tokens. Anything else (other members, `versions`, escapes, non-ASCII text, any
/// error) gives nil, and the line goes the general way, which answers it or its error.
public struct GetRequestLine: Sendable {
    /// Where the `id`'s JSON text is in the line: an integer, or a string with its quotes;
    /// an answer carries these bytes as they are.
    public let id: Range<Int>
    /// Where the text of each of `ids` is in the line, without its quotes.
    public let ids: [Range<Int>]

    /// The request in `line` (without its `\n`), or nil when it is not a plain `get` request.
    public static func read(_ line: UnsafeRawBufferPointer) -> GetRequestLine? {
        var reader = PlainLineReader(bytes: line)
        guard let (id, ids) = reader.request(method: method, params: { $0.ids() }) else { return nil }
        return GetRequestLine(id: id, ids: ids)
    }

    private static let method = Array(#""get""#.utf8)
}

extension PlainLineReader {
    private static let ids = Array(#""ids""#.utf8)

    /// `{"ids":[…]}`: where each ID's text is.
    fileprivate mutating func ids() -> [Range<Int>]? {
        guard take(UInt8(ascii: "{")), take(Self.ids), take(UInt8(ascii: ":")), take(UInt8(ascii: "[")) else { return nil }
        var ranges: [Range<Int>] = []
        if take(UInt8(ascii: "]")) {
            return take(UInt8(ascii: "}")) ? ranges : nil
        }
        while true {
            skipWhitespace()
            guard let range = plainString() else { return nil }
            ranges.append(range)
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "]")), take(UInt8(ascii: "}")) else { return nil }
            return ranges
        }
    }
}
