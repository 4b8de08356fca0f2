import DocumentProtocol
import JSONCore

/// Reads the named parameters of a method, each error naming the parameter's path
/// (`params.sort[0].key`) and what was expected.
struct Params {
    /// Where the object is (`params.sort[0]`): made only when asked, for an error or a path
    /// kept (a save names many objects, and their paths cost more than their checks).
    var path: String { Self.path(base, index) }
    /// The path, or that of the list the object is an element of.
    private let base: String
    /// The object's place in the list at `base`; nil: the object is at `base`.
    private let index: Int?
    private let pairs: [(key: String, value: JSONValue)]

    /// The members of an object at `path`; refuses a value that is not an object, and
    /// (with `allowed`) members the method does not know, to catch misspelled names.
    init(_ value: JSONValue, path: String = "params", allowed: [String]? = nil) throws(RPCError) {
        try self.init(value, base: path, index: nil, allowed: allowed)
    }

    /// The members of element `index` of the list at `list` (`params.update`, 0: the
    /// object at `params.update[0]`), as ``init(_:path:allowed:)`` reads them.
    init(_ value: JSONValue, list: String, index: Int, allowed: [String]? = nil) throws(RPCError) {
        try self.init(value, base: list, index: index, allowed: allowed)
    }

    /// `base`, or element `index` of the list at `base` (`params.update[0]`).
    private static func path(_ base: String, _ index: Int?) -> String {
        index.map { "\(base)[\($0)]" } ?? base
    }

    private init(_ value: JSONValue, base: String, index: Int?, allowed: [String]?) throws(RPCError) {
        guard case .object(let pairs) = value else {
            throw .invalidParams(Self.path(base, index), "must be an object, not \(value.kindDescription)")
        }
        self.base = base
        self.index = index
        self.pairs = pairs
        if let allowed {
            for (key, _) in pairs where !allowed.contains(key) {
                throw .invalidParams("\(path).\(RPCError.capped(key))", allowed.isEmpty
                                     ? "unknown parameter: none is taken here"
                                     : "unknown parameter (known: \(allowed.joined(separator: ", ")))")
            }
        }
    }

    /// Refuses any parameter of `method`, which takes none (`params` omitted, or `{}`).
    static func none(_ value: JSONValue, method: String) throws(RPCError) {
        let params = try Params(value)
        if let key = params.pairs.first?.key {
            throw .invalidParams("params.\(RPCError.capped(key))", "unknown parameter: \(method) takes no parameters")
        }
    }

    func path(_ key: String) -> String { "\(path).\(key)" }

    subscript(key: String) -> JSONValue? {
        guard let value = pairs.last(where: { $0.key == key })?.value else { return nil }
        return value
    }

    func string(_ key: String) throws(RPCError) -> String {
        guard let value = self[key] else { throw .invalidParams(path(key), "is required (a string)") }
        guard case .string(let text) = value else { throw .invalidParams(path(key), "must be a string, not \(value.kindDescription)") }
        return text
    }

    func optionalString(_ key: String) throws(RPCError) -> String? {
        guard let value = self[key], value != .null else { return nil }
        guard case .string(let text) = value else { throw .invalidParams(path(key), "must be a string, not \(value.kindDescription)") }
        return text
    }

    func optionalBool(_ key: String) throws(RPCError) -> Bool? {
        guard let value = self[key], value != .null else { return nil }
        guard case .bool(let flag) = value else { throw .invalidParams(path(key), "must be true or false, not \(value.kindDescription)") }
        return flag
    }

    /// A whole number from `minimum` up, within Int.
    func optionalInteger(_ key: String, minimum: Int) throws(RPCError) -> Int? {
        guard let value = self[key], value != .null else { return nil }
        guard case .number(let text) = value, let number = Int(text), number >= minimum else {
            throw .invalidParams(path(key), "must be an integer of at least \(minimum), not \(Self.describe(value))")
        }
        return number
    }

    func optionalArray(_ key: String) throws(RPCError) -> [JSONValue]? {
        guard let value = self[key], value != .null else { return nil }
        guard case .array(let elements) = value else { throw .invalidParams(path(key), "must be an array, not \(value.kindDescription)") }
        return elements
    }

    /// A value as it appears in a message: `a string "abc"`, `a number 1.5`.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return "a string \"\(RPCError.capped(text))\""
        case .number(let text): return "a number \(RPCError.capped(text))"
        case .bool(let flag): return flag ? "true" : "false"
        default: return value.kindDescription
        }
    }
}
