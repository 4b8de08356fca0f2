/// A cursor over a request line for the server's fast paths (``GetRequestLine``,
/// ``FetchRequestLine``, ``SaveRequestLine``): it reads the plain JSON those requests usually
/// are, and each step returns nil (or false) on anything unusual, so that the line goes the general way
/// (`JSONValue.parse`, then ``RPCRequest/parse(_:)``), which answers it or its error.
///
/// Plain means: strings of printable ASCII without escapes, integers without fraction or
/// exponent, JSON whitespace between the tokens.
struct PlainLineReader {
    let bytes: UnsafeRawBufferPointer
    /// Where the next token starts; the readers of each request move it.
    var position = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private static let jsonrpc = Array(#""jsonrpc""#.utf8)
    private static let id = Array(#""id""#.utf8)
    private static let method = Array(#""method""#.utf8)
    private static let params = Array(#""params""#.utf8)
    private static let version = Array(#""2.0""#.utf8)

    /// A whole request: one object with the members `jsonrpc` (`"2.0"`), `id` (an integer,
    /// or a plain string), `method` (the JSON text `method`, quotes included) and `params`
    /// (read by `params`), each once, in any order, and nothing after it. The range of the
    /// `id`'s text (a string with its quotes), and what `params` read.
    mutating func request<Params>(method: [UInt8], params: (inout PlainLineReader) -> Params?) -> (id: Range<Int>, params: Params)? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var seen: UInt8 = 0  // jsonrpc 1, id 2, method 4, params 8
        var id: Range<Int>?
        var read: Params?
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
                guard take(UInt8(ascii: ":")), take(method) else { return nil }
            } else if take(Self.params) {
                member = 8
                guard take(UInt8(ascii: ":")), let value = params(&self) else { return nil }
                read = value
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
        guard position == bytes.count, seen == 15, let id, let read else { return nil }
        return (id, read)
    }

    /// An integer (`-?(0|[1-9][0-9]*)`, at most 20 digits), or a plain string with its quotes.
    mutating func idValue() -> Range<Int>? {
        skipWhitespace()
        guard position < bytes.count else { return nil }
        if bytes[position] == UInt8(ascii: "\"") {
            let start = position
            guard plainString() != nil else { return nil }
            return start..<position
        }
        return integer()
    }

    /// The text of an integer (`-?(0|[1-9][0-9]*)`, at most 20 digits); nil for any other
    /// number (a fraction, an exponent: the general way reads those).
    mutating func integer() -> Range<Int>? {
        skipWhitespace()
        let start = position
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let digitsStart = position
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
        let digits = position - digitsStart
        guard digits > 0, digits <= 20, digits == 1 || bytes[digitsStart] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") || bytes[position] | 0x20 == UInt8(ascii: "e") { return nil }
        return start..<position
    }

    /// A string of printable ASCII without `"` or `\` inside; the range of its text.
    mutating func plainString() -> Range<Int>? {
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

    /// The text of the bytes in `range`.
    func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Skips whitespace, then takes `byte` if it comes next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Skips whitespace, then takes `token` if it comes next.
    mutating func take(_ token: [UInt8]) -> Bool {
        skipWhitespace()
        guard bytes.count - position >= token.count else { return false }
        for (offset, byte) in token.enumerated() where bytes[position + offset] != byte { return false }
        position += token.count
        return true
    }

    /// Skips JSON whitespace.
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Whether the next byte, after whitespace, is `byte` (not taken).
    mutating func peek(_ byte: UInt8) -> Bool {
        skipWhitespace()
        return position < bytes.count && bytes[position] == byte
    }
}
