import DocumentProtocol
import FuzzSupport
import JSONCore
import NIOCore

/// A line the server's fast readers take (``GetRequestLine``, ``FetchRequestLine``,
/// ``SaveRequestLine``) must be JSON that the general path reads as the same request: the
/// method, the id, and each member of `params` the reader gave, with the same value.
func checkLineReaders(_ line: ByteBuffer) {
    line.withUnsafeReadableBytes { bytes in
        let get = GetRequestLine.read(bytes), fetch = FetchRequestLine.read(bytes), save = SaveRequestLine.read(bytes)
        guard get != nil || fetch != nil || save != nil else { return }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let message = try? JSONValue.parse(bytes, maximumDepth: 128), case .object = message,
              message["jsonrpc"] == .string("2.0"), case .object(let params)? = message["params"] else {
            fuzzFailure("a fast reader took a line the general path does not read as a request: \(text)")
        }
        func string(_ range: Range<Int>) -> JSONValue {
            .string(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self))
        }
        func idMatches(_ range: Range<Int>) -> Bool {
            let idText = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            return message["id"] == (idText.hasPrefix("\"") ? .string(String(idText.dropFirst().dropLast())) : .number(idText))
        }
        if let get {
            let ids = get.ids.map(string)
            guard message["method"] == .string("get"), idMatches(get.id), params.count == 1, message["params"]?["ids"] == .array(ids) else {
                fuzzFailure("GetRequestLine read \(ids) from a line the general path reads otherwise: \(text)")
            }
        }
        if let fetch {
            var expected: [String: JSONValue] = ["entity": string(fetch.entity)]
            if let predicate = fetch.predicate { expected["predicate"] = string(predicate) }
            if let limit = fetch.limit { expected["limit"] = .number(String(limit)) }
            if let offset = fetch.offset { expected["offset"] = .number(String(offset)) }
            if let resultType = fetch.resultType { expected["resultType"] = string(resultType) }
            var same = message["method"] == .string("fetch") && idMatches(fetch.id)
            for (key, value) in params {
                switch key {
                case "arguments":
                    guard case .array(let elements) = value, elements.count == fetch.arguments.count else { same = false; continue }
                    for (element, argument) in zip(elements, fetch.arguments) {
                        switch argument {
                        case .integer(let number):
                            if case .number(let digits) = element, Int64(digits) == number { continue }
                        case .string(let range):
                            if element == string(range) { continue }
                        }
                        same = false
                    }
                case "limit", "offset":
                    if case .number(let digits) = value, expected[key].map({ $0 == .number(String(Int(digits) ?? -1)) }) == true { continue }
                    same = false
                default:
                    if expected[key] != value { same = false }
                }
            }
            let named = Set(params.map(\.key))
            if !same || named.count != params.count || !named.isSuperset(of: expected.keys) {
                fuzzFailure("FetchRequestLine read \(fetch) from a line the general path reads otherwise: \(text)")
            }
        }
        if let save {
            func value(_ read: SaveRequestLine.Value) -> JSONValue {
                switch read {
                case .string(let range): string(range)
                case .number(let range): .number(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self))
                case .bool(let flag): .bool(flag)
                case .null: .null
                case .strings(let ranges): .array(ranges.map(string))
                }
            }
            func values(_ members: [SaveRequestLine.Member]) -> [String: JSONValue] {
                var all: [String: JSONValue] = [:]
                for member in members { all[String(decoding: UnsafeRawBufferPointer(rebasing: bytes[member.key]), as: UTF8.self)] = value(member.value) }
                return all
            }
            /// The members of one element of the tree, each once, as a dictionary (nil for a key given twice).
            func members(_ element: JSONValue?) -> [String: JSONValue]? {
                guard case .object(let pairs)? = element else { return nil }
                var all: [String: JSONValue] = [:]
                for (key, value) in pairs where all.updateValue(value, forKey: key) != nil { return nil }
                return all
            }
            func valuesMatch(_ read: [SaveRequestLine.Member], _ given: JSONValue?) -> Bool {
                guard let given, given != .null else { return read.isEmpty }
                return members(given) == values(read)
            }
            func list(_ key: String) -> [JSONValue] {
                if case .array(let elements)? = message["params"]?[key] { return elements }
                return []
            }
            var same = message["method"] == .string("save") && idMatches(save.id)
                && Set(params.map(\.key)).isSubset(of: ["insert", "update", "delete"])
            let inserts = list("insert"), updates = list("update"), deletes = list("delete")
            same = same && inserts.count == save.inserts.count && updates.count == save.updates.count && deletes.count == save.deletes.count
            for (element, insert) in zip(inserts, save.inserts) {
                guard let given = members(element), given["id"] == string(insert.id), given["entity"] == string(insert.entity),
                      Set(given.keys).isSubset(of: ["id", "entity", "values"]), valuesMatch(insert.values, given["values"]) else { same = false; continue }
            }
            for (element, update) in zip(updates, save.updates) {
                guard let given = members(element), given["id"] == string(update.id), given["version"] == .number(String(update.version)),
                      Set(given.keys).isSubset(of: ["id", "version", "values"]), valuesMatch(update.values, given["values"]) else { same = false; continue }
            }
            for (element, delete) in zip(deletes, save.deletes) {
                guard let given = members(element), given["id"] == string(delete.id), given["version"] == .number(String(delete.version)),
                      Set(given.keys).isSubset(of: ["id", "version"]) else { same = false; continue }
            }
            if !same {
                fuzzFailure("SaveRequestLine read \(save) from a line the general path reads otherwise: \(text)")
            }
        }
    }
}
