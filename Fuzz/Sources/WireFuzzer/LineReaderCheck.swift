import DocumentProtocol
import FuzzSupport
import JSONCore
import NIOCore

/// A line the server's fast readers take (``GetRequestLine``, ``FetchRequestLine``) must be
/// JSON that the general path reads as the same request: the method, the id, and each
/// member of `params` the reader gave, with the same value.
func checkLineReaders(_ line: ByteBuffer) {
    line.withUnsafeReadableBytes { bytes in
        let get = GetRequestLine.read(bytes), fetch = FetchRequestLine.read(bytes)
        guard get != nil || fetch != nil else { return }
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
    }
}
