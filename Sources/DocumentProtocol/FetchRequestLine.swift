/// A `fetch` request read straight from its line, without building a JSON tree: the
/// server's fast path for the lookups clients send most (an entity, a predicate, its
/// arguments, a page).
///
/// ``read(_:)`` accepts only a plain request that the general path (`JSONValue.parse`, then
/// ``RPCRequest/parse(_:)``) would accept with the same meaning: the members `jsonrpc`
/// (`"2.0"`), `id` (an integer, or a string of printable ASCII without escapes), `method`
/// (`"fetch"`) and `params`, each once, in any order. `params` holds `entity` (such a string)
/// and optionally `predicate` (such a string), `arguments` (an array of integers that fit
/// 64 bits and such strings), `limit` and `offset` (integers from 0) and `resultType` (such a
/// string), each once. Anything else (`sort`, `explain`, other argument kinds, escapes,
/// non-ASCII text, any error) gives nil, and the line goes the general way, which answers it
/// or its error.
public struct FetchRequestLine: Sendable {
    /// A predicate argument as the general way reads it.
    public enum Argument: Sendable, Equatable {
        /// A JSON integer (the general way makes it an integer value).
        case integer(Int64)
        /// The text of a string, without its quotes.
        case string(Range<Int>)
    }

    /// Where the `id`'s JSON text is in the line: an integer, or a string with its quotes;
    /// an answer carries these bytes as they are.
    public let id: Range<Int>
    /// Where the entity's name is in the line, without its quotes.
    public let entity: Range<Int>
    /// Where the predicate's format is in the line, without its quotes (nil: no predicate).
    public let predicate: Range<Int>?
    public let arguments: [Argument]
    public let limit: Int?
    public let offset: Int?
    /// Where the `resultType`'s text is in the line, without its quotes (nil: not given).
    public let resultType: Range<Int>?

    /// The request in `line` (without its `\n`), or nil when it is not a plain `fetch` request.
    public static func read(_ line: UnsafeRawBufferPointer) -> FetchRequestLine? {
        var reader = PlainLineReader(bytes: line)
        guard let (id, params) = reader.request(method: method, params: { $0.fetchParams() }) else { return nil }
        return FetchRequestLine(id: id, entity: params.entity, predicate: params.predicate, arguments: params.arguments,
                                limit: params.limit, offset: params.offset, resultType: params.resultType)
    }

    private static let method = Array(#""fetch""#.utf8)
}

extension PlainLineReader {
    private static let entity = Array(#""entity""#.utf8)
    private static let predicate = Array(#""predicate""#.utf8)
    private static let arguments = Array(#""arguments""#.utf8)
    private static let limit = Array(#""limit""#.utf8)
    private static let offset = Array(#""offset""#.utf8)
    private static let resultType = Array(#""resultType""#.utf8)

    fileprivate struct FetchParams {
        var entity: Range<Int>
        var predicate: Range<Int>?
        var arguments: [FetchRequestLine.Argument] = []
        var limit: Int?
        var offset: Int?
        var resultType: Range<Int>?
    }

    /// `{"entity":…, "predicate":…, "arguments":[…], "limit":n, "offset":n, "resultType":…}`,
    /// `entity` required.
    fileprivate mutating func fetchParams() -> FetchParams? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var seen: UInt8 = 0  // entity 1, predicate 2, arguments 4, limit 8, offset 16, resultType 32
        var entity: Range<Int>?
        var predicate: Range<Int>?
        var arguments: [FetchRequestLine.Argument] = []
        var limit: Int?, offset: Int?
        var resultType: Range<Int>?
        if take(UInt8(ascii: "}")) { return nil }  // no entity
        while true {
            let member: UInt8
            if take(Self.entity) {
                member = 1
                guard let range = stringValue() else { return nil }
                entity = range
            } else if take(Self.predicate) {
                member = 2
                guard let range = stringValue() else { return nil }
                predicate = range
            } else if take(Self.arguments) {
                member = 4
                guard take(UInt8(ascii: ":")), let read = argumentList() else { return nil }
                arguments = read
            } else if take(Self.limit) {
                member = 8
                guard take(UInt8(ascii: ":")), let number = count() else { return nil }
                limit = number
            } else if take(Self.offset) {
                member = 16
                guard take(UInt8(ascii: ":")), let number = count() else { return nil }
                offset = number
            } else if take(Self.resultType) {
                member = 32
                guard let range = stringValue() else { return nil }
                resultType = range
            } else {
                return nil
            }
            guard seen & member == 0 else { return nil }
            seen |= member
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "}")) else { return nil }
            break
        }
        guard let entity else { return nil }
        return FetchParams(entity: entity, predicate: predicate, arguments: arguments, limit: limit, offset: offset, resultType: resultType)
    }

    /// `: "…"`: a member's plain string value; the range of its text.
    private mutating func stringValue() -> Range<Int>? {
        guard take(UInt8(ascii: ":")) else { return nil }
        skipWhitespace()
        return plainString()
    }

    /// `[…]` of integers that fit 64 bits and plain strings.
    private mutating func argumentList() -> [FetchRequestLine.Argument]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var arguments: [FetchRequestLine.Argument] = []
        if take(UInt8(ascii: "]")) { return arguments }
        while true {
            if peek(UInt8(ascii: "\"")) {
                guard let range = plainString() else { return nil }
                arguments.append(.string(range))
            } else {
                guard let range = integer(), let number = Int64(text(range)) else { return nil }
                arguments.append(.integer(number))
            }
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "]")) else { return nil }
            return arguments
        }
    }

    /// An integer from 0 that fits an `Int` (as the general way reads `limit` and `offset`).
    private mutating func count() -> Int? {
        guard let range = integer(), let number = Int(text(range)), number >= 0 else { return nil }
        return number
    }
}
