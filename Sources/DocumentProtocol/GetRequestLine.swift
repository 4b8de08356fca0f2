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
        var reader = Reader(bytes: line)
        return reader.request()
    }

    /// A cursor over the line; each step returns nil (or false) on anything unusual.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        private static let jsonrpc = Array(#""jsonrpc""#.utf8)
        private static let id = Array(#""id""#.utf8)
        private static let method = Array(#""method""#.utf8)
        private static let params = Array(#""params""#.utf8)
        private static let ids = Array(#""ids""#.utf8)
        private static let version = Array(#""2.0""#.utf8)
        private static let get = Array(#""get""#.utf8)

        init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        mutating func request() -> GetRequestLine? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var seen: UInt8 = 0  // jsonrpc 1, id 2, method 4, params 8
            var id: Range<Int>?
            var ids: [Range<Int>]?
            while true {
                let member: UInt8
                if take(Self.jsonrpc) {
                    member = 1
                    guard take(UInt8(ascii: ":")), take(Self.version) else { return nil }
                } else if take(Self.id) {
                    member = 2
                    guard take(UInt8(ascii: ":")), let range = idValue() else { return nil }
                    id = range
                } else if take(Self.method) {
                    member = 4
                    guard take(UInt8(ascii: ":")), take(Self.get) else { return nil }
                } else if take(Self.params) {
                    member = 8
                    guard take(UInt8(ascii: ":")), let ranges = paramsValue() else { return nil }
                    ids = ranges
                } else {
                    return nil
                }
                guard seen & member == 0 else { return nil }  // a member given twice
                seen |= member
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")) else { return nil }
                break
            }
            skipWhitespace()
            guard position == bytes.count, seen == 15, let id, let ids else { return nil }
            return GetRequestLine(id: id, ids: ids)
        }

        /// `{"ids":[…]}`.
        private mutating func paramsValue() -> [Range<Int>]? {
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

        /// An integer (`-?(0|[1-9][0-9]*)`, at most 20 digits), or a plain string with its quotes.
        private mutating func idValue() -> Range<Int>? {
            skipWhitespace()
            guard position < bytes.count else { return nil }
            if bytes[position] == UInt8(ascii: "\"") {
                let start = position
                guard plainString() != nil else { return nil }
                return start..<position
            }
            let start = position
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            let digitsStart = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
            let digits = position - digitsStart
            guard digits > 0, digits <= 20, digits == 1 || bytes[digitsStart] != UInt8(ascii: "0") else { return nil }
            // A fraction or an exponent: the general way.
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") || bytes[position] | 0x20 == UInt8(ascii: "e") { return nil }
            return start..<position
        }

        /// A string of printable ASCII without `"` or `\` inside; the range of its text.
        private mutating func plainString() -> Range<Int>? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
            let start = position + 1
            var index = start
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    position = index + 1
                    return start..<index
                }
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            return nil
        }

        /// Skips whitespace, then takes `byte` if it comes next.
        private mutating func take(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// Skips whitespace, then takes `token` if it comes next.
        private mutating func take(_ token: [UInt8]) -> Bool {
            skipWhitespace()
            guard bytes.count - position >= token.count else { return false }
            for (offset, byte) in token.enumerated() where bytes[position + offset] != byte { return false }
            position += token.count
            return true
        }

        private mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }
    }
}
