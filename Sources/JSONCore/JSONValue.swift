import Foundation

/// A JSON value as a tree, for small documents such as the messages of a line protocol
/// (a store file is never read into one: it streams into snapshots).
///
/// Numbers keep their JSON text, so that an integer reads back exactly and a reader
/// chooses how to read the rest (see ``ValueForm``). Objects keep their keys in order.
///
/// ```swift
/// let message = try JSONValue.parse(bytes, maximumDepth: 128)
/// if case .string(let method)? = message["method"] { ... }
/// ```
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number as its JSON text (`-12`, `1.5e3`).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// Key-value pairs in document order. ``parse(_:maximumDepth:)`` refuses an object
    /// with a key given twice; one built in code may hold both pairs, and then lookups with
    /// ``subscript(_:)`` find the last.
    case object([(key: String, value: JSONValue)])

    /// The value of `key` when this is an object (the last pair with that key).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.last { $0.key == key }?.value
    }

    /// A number from an integer.
    public static func integer(_ value: Int64) -> JSONValue { .number(String(value)) }

    /// What kind of value this is, for messages: "a string", "an object", …
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Equal values: objects with the same pairs in the same order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    // MARK: - Reading

    /// Parses one JSON text strictly (see ``JSONEventParser``).
    ///
    /// - Throws: ``JSONError/invalidJSON(offset:line:column:reason:)`` for a syntax error or a
    ///   key given twice in one object (the place is just after the second), and
    ///   ``JSONError/unexpectedShape(offset:line:column:reason:)`` when arrays and objects nest
    ///   deeper than `maximumDepth`.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maximumDepth: Int = 128) throws -> JSONValue {
        let builder = TreeBuilder(maximumDepth: maximumDepth)
        try JSONEventParser.parse(bytes, handler: builder)
        return builder.result ?? .null
    }

    // MARK: - Writing

    /// Writes the value with a generator (compact, keys in order).
    public func write(to out: JSONGenerator) throws {
        switch self {
        case .null: try out.null()
        case .bool(let value): try out.bool(value)
        case .number(let text):
            var text = text
            try text.withUTF8 { try out.number(UnsafeRawBufferPointer($0)) }
        case .string(let text): try out.string(text)
        case .array(let elements):
            try out.openArray()
            for element in elements { try element.write(to: out) }
            try out.closeArray()
        case .object(let pairs):
            try out.openObject()
            for (key, value) in pairs {
                try out.string(key)
                try value.write(to: out)
            }
            try out.closeObject()
        }
    }

    /// The compact JSON text of the value.
    public var jsonText: String {
        guard let out = try? JSONGenerator() else { return "" }
        var text = ""
        do {
            try write(to: out)
            try out.flush { text = String(decoding: $0, as: UTF8.self) }
        } catch {
            return ""
        }
        return text
    }
}

/// Builds a ``JSONValue`` from parser events.
///
/// The open containers are mutated in place (`frames[last].elements.append`), never taken
/// out of the stack and put back: a container bound out of an enum is a second reference to
/// its storage, so each append would copy the whole array (quadratic in its length).
private final class TreeBuilder: JSONEventHandler {
    private struct Frame {
        let isArray: Bool
        var elements: [JSONValue] = []
        var pairs: [(key: String, value: JSONValue)] = []
        var pendingKey = ""
        /// The keys of a large object, for finding duplicates; small ones are searched.
        var keys: Set<String>?

        /// Takes `key` as the next key; false when the object already has it.
        mutating func take(_ key: String) -> Bool {
            if keys == nil {
                guard !pairs.contains(where: { $0.key == key }) else { return false }
                if pairs.count >= Frame.searchLimit { keys = Set(pairs.lazy.map(\.key)) }
            }
            if keys?.insert(key).inserted == false { return false }
            pendingKey = key
            return true
        }

        /// Objects with more keys than this look them up in a set (a search is quadratic).
        static let searchLimit = 16
    }

    let maximumDepth: Int
    private var frames: [Frame] = []
    var result: JSONValue?

    init(maximumDepth: Int) { self.maximumDepth = maximumDepth }

    private func add(_ value: JSONValue) {
        let last = frames.count - 1
        guard last >= 0 else {
            result = value
            return
        }
        if frames[last].isArray {
            frames[last].elements.append(value)
        } else {
            frames[last].pairs.append((frames[last].pendingKey, value))
        }
    }

    private func open(isArray: Bool) throws {
        guard frames.count < maximumDepth else {
            throw JSONShapeError("arrays and objects nest deeper than \(maximumDepth) levels")
        }
        frames.append(Frame(isArray: isArray))
    }

    func null() { add(.null) }
    func bool(_ value: Bool) { add(.bool(value)) }
    func number(_ text: UnsafeRawBufferPointer) { add(.number(String(decoding: text, as: UTF8.self))) }
    func string(_ bytes: UnsafeRawBufferPointer) { add(.string(String(decoding: bytes, as: UTF8.self))) }
    func startObject() throws { try open(isArray: false) }

    func key(_ bytes: UnsafeRawBufferPointer) throws {
        let last = frames.count - 1
        guard last >= 0 else { return }
        let key = String(decoding: bytes, as: UTF8.self)
        guard frames[last].take(key) else { throw JSONDuplicateKeyError(key: key) }
    }

    func endObject() {
        if let frame = frames.popLast() { add(.object(frame.pairs)) }
    }

    func startArray() throws { try open(isArray: true) }

    func endArray() {
        if let frame = frames.popLast() { add(.array(frame.elements)) }
    }
}
