/// A `save` request read straight from its line, without building a JSON tree: the server's
/// fast path for the writes clients send most (a few objects inserted, updated or deleted,
/// their values JSON scalars).
///
/// ``read(_:)`` accepts only a plain request that the general path (`JSONValue.parse`, then
/// ``RPCRequest/parse(_:)``) reads with the same meaning: the members `jsonrpc` (`"2.0"`),
/// `id` (an integer, or a string of printable ASCII without escapes), `method` (`"save"`) and
/// `params`, each once, in any order. `params` holds `insert`, `update` and `delete` (each an
/// array, or null), each once. An insert holds `id`, `entity` and optionally `values`; an
/// update `id`, `version` and optionally `values`; a delete `id` and `version`: each once,
/// the IDs and the entity strings of printable ASCII without escapes, a version an integer
/// from 1 that fits 64 bits. `values` (an object, or null) maps such strings, each once, to a
/// string without escapes (valid UTF-8), a number, `true`, `false`, `null`, or an array of
/// such ASCII strings (a to-many relationship's IDs). Anything else (other members, nested
/// objects, escapes, a key given twice, any error) gives nil, and the line goes the general
/// way, which answers it or its error.
///
/// What the values mean (an entity, a property, an ID) is the server's to check.
public struct SaveRequestLine: Sendable {
    /// A value in `values`, as its place in the line.
    public enum Value: Sendable, Equatable {
        /// The text of a string, without its quotes: valid UTF-8 without escapes.
        case string(Range<Int>)
        /// The JSON text of a number.
        case number(Range<Int>)
        case bool(Bool)
        case null
        /// An array of strings of printable ASCII: the text of each, without its quotes.
        case strings([Range<Int>])
    }

    /// One member of `values`: where its key's text is (printable ASCII, without quotes), and its value.
    public struct Member: Sendable, Equatable {
        public let key: Range<Int>
        public let value: Value
    }

    public struct Insert: Sendable, Equatable {
        /// The temporary ID's text, without quotes.
        public let id: Range<Int>
        /// The entity's name, without quotes.
        public let entity: Range<Int>
        /// Empty when `values` is absent or null.
        public let values: [Member]
    }

    public struct Update: Sendable, Equatable {
        /// The object ID's text, without quotes.
        public let id: Range<Int>
        public let version: Int64
        /// Empty when `values` is absent or null.
        public let values: [Member]
    }

    public struct Delete: Sendable, Equatable {
        /// The object ID's text, without quotes.
        public let id: Range<Int>
        public let version: Int64
    }

    /// Where the `id`'s JSON text is in the line: an integer, or a string with its quotes.
    public let id: Range<Int>
    public let inserts: [Insert]
    public let updates: [Update]
    public let deletes: [Delete]

    /// The most members a `values` object may have here (its keys are checked against one
    /// another for duplicates); a larger one goes the general way.
    static let maximumValues = 64

    /// The request in `line` (without its `\n`), or nil when it is not a plain `save` request.
    public static func read(_ line: UnsafeRawBufferPointer) -> SaveRequestLine? {
        var reader = PlainLineReader(bytes: line)
        guard let (id, params) = reader.request(method: method, params: { $0.saveParams() }) else { return nil }
        return SaveRequestLine(id: id, inserts: params.inserts, updates: params.updates, deletes: params.deletes)
    }

    private static let method = Array(#""save""#.utf8)
}

extension PlainLineReader {
    private static let insertMember = Array(#""insert""#.utf8)
    private static let updateMember = Array(#""update""#.utf8)
    private static let deleteMember = Array(#""delete""#.utf8)
    private static let idMember = Array(#""id""#.utf8)
    private static let entityMember = Array(#""entity""#.utf8)
    private static let versionMember = Array(#""version""#.utf8)
    private static let valuesMember = Array(#""values""#.utf8)
    private static let nullToken = Array("null".utf8)
    private static let trueToken = Array("true".utf8)
    private static let falseToken = Array("false".utf8)

    fileprivate struct SaveParams {
        var inserts: [SaveRequestLine.Insert] = []
        var updates: [SaveRequestLine.Update] = []
        var deletes: [SaveRequestLine.Delete] = []
    }

    /// `{"insert":[…],"update":[…],"delete":[…]}`, each member optional.
    fileprivate mutating func saveParams() -> SaveParams? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var params = SaveParams()
        if take(UInt8(ascii: "}")) { return params }
        var seen: UInt8 = 0  // insert 1, update 2, delete 4
        while true {
            let member: UInt8
            if take(Self.insertMember) {
                member = 1
                guard take(UInt8(ascii: ":")), let list = array({ $0.insertElement() }) else { return nil }
                params.inserts = list
            } else if take(Self.updateMember) {
                member = 2
                guard take(UInt8(ascii: ":")), let list = array({ $0.updateElement() }) else { return nil }
                params.updates = list
            } else if take(Self.deleteMember) {
                member = 4
                guard take(UInt8(ascii: ":")), let list = array({ $0.deleteElement() }) else { return nil }
                params.deletes = list
            } else {
                return nil
            }
            guard seen & member == 0 else { return nil }
            seen |= member
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "}")) ? params : nil
        }
    }

    /// An array of what `element` reads, or `null` (no elements).
    private mutating func array<Element>(_ element: (inout PlainLineReader) -> Element?) -> [Element]? {
        if take(Self.nullToken) { return [] }
        guard take(UInt8(ascii: "[")) else { return nil }
        var elements: [Element] = []
        if take(UInt8(ascii: "]")) { return elements }
        while true {
            guard let read = element(&self) else { return nil }
            elements.append(read)
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "]")) ? elements : nil
        }
    }

    /// The members of one insert, update or delete: `id` (a plain string), `entity` (a plain
    /// string), `version` (an integer from 1) and `values`, each at most once and only those
    /// `allowed` (bits: id 1, entity 2, version 4, values 8); nil for anything else.
    private mutating func change(allowed: UInt8) -> (id: Range<Int>?, entity: Range<Int>?, version: Int64?, values: [SaveRequestLine.Member])? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var seen: UInt8 = 0
        var id: Range<Int>?
        var entity: Range<Int>?
        var version: Int64?
        var values: [SaveRequestLine.Member] = []
        if take(UInt8(ascii: "}")) { return (nil, nil, nil, values) }
        while true {
            let member: UInt8
            if take(Self.idMember) {
                member = 1
                guard take(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                guard let range = plainString() else { return nil }
                id = range
            } else if take(Self.entityMember) {
                member = 2
                guard take(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                guard let range = plainString() else { return nil }
                entity = range
            } else if take(Self.versionMember) {
                member = 4
                guard take(UInt8(ascii: ":")), let range = integer(),
                      let number = Int64(text(range)), number >= 1 else { return nil }
                version = number
            } else if take(Self.valuesMember) {
                member = 8
                guard take(UInt8(ascii: ":")), let read = valuesObject() else { return nil }
                values = read
            } else {
                return nil
            }
            guard allowed & member != 0, seen & member == 0 else { return nil }
            seen |= member
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "}")) else { return nil }
            return (id, entity, version, values)
        }
    }

    private mutating func insertElement() -> SaveRequestLine.Insert? {
        guard let read = change(allowed: 1 | 2 | 8), let id = read.id, let entity = read.entity else { return nil }
        return SaveRequestLine.Insert(id: id, entity: entity, values: read.values)
    }

    private mutating func updateElement() -> SaveRequestLine.Update? {
        guard let read = change(allowed: 1 | 4 | 8), let id = read.id, let version = read.version else { return nil }
        return SaveRequestLine.Update(id: id, version: version, values: read.values)
    }

    private mutating func deleteElement() -> SaveRequestLine.Delete? {
        guard let read = change(allowed: 1 | 4), let id = read.id, let version = read.version else { return nil }
        return SaveRequestLine.Delete(id: id, version: version)
    }

    /// `{"key":value,…}` or `null` (no members); nil for a key given twice or a value not read here.
    private mutating func valuesObject() -> [SaveRequestLine.Member]? {
        if take(Self.nullToken) { return [] }
        guard take(UInt8(ascii: "{")) else { return nil }
        var members: [SaveRequestLine.Member] = []
        if take(UInt8(ascii: "}")) { return members }
        while true {
            skipWhitespace()
            guard let key = plainString(), take(UInt8(ascii: ":")), let value = scalarValue() else { return nil }
            // A key given twice is a parse error on the general way.
            for other in members where other.key.count == key.count {
                if bytes[other.key].elementsEqual(bytes[key]) { return nil }
            }
            guard members.count < SaveRequestLine.maximumValues else { return nil }
            members.append(SaveRequestLine.Member(key: key, value: value))
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "}")) ? members : nil
        }
    }

    /// A string, a number, `true`, `false`, `null`, or an array of plain strings.
    private mutating func scalarValue() -> SaveRequestLine.Value? {
        skipWhitespace()
        guard position < bytes.count else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            return utf8String().map { .string($0) }
        case UInt8(ascii: "["):
            return array({ reader in
                reader.skipWhitespace()
                return reader.plainString()
            }).map { .strings($0) }
        case UInt8(ascii: "t"):
            return take(Self.trueToken) ? .bool(true) : nil
        case UInt8(ascii: "f"):
            return take(Self.falseToken) ? .bool(false) : nil
        case UInt8(ascii: "n"):
            return take(Self.nullToken) ? .null : nil
        default:
            return number().map { .number($0) }
        }
    }

    /// The text of a JSON number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
    private mutating func number() -> Range<Int>? {
        let start = position
        var index = position
        func digits() -> Int {
            let first = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            return index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return nil }
        }
        position = index
        return start..<index
    }

    /// A string without `\` whose bytes are printable ASCII or valid UTF-8 beyond ASCII; the
    /// range of its text.
    private mutating func utf8String() -> Range<Int>? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        let start = position + 1
        var index = start
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                if !ascii, String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self) == nil { return nil }
                position = index + 1
                return start..<index
            }
            if byte >= 0x80 {
                ascii = false
            } else {
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            }
            index += 1
        }
        return nil
    }
}
