import Foundation
import ServerTestSupport

/// What the tests of whole stores moved between engines compare.
enum AnswerText {
    /// A `get` answer's objects as text with sorted keys, comparable across servers.
    static func comparable(_ answer: [String: Any]) -> [String] {
        answer.objects.map { object in
            guard let object, let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "null" }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// The integer reference at the end of an ID (`graph://…/Song/12` → 12).
    static func reference(_ id: String) throws -> Int64 {
        guard let last = id.split(separator: "/").last, let value = Int64(last) else { throw HarnessError("no reference in \(id)") }
        return value
    }
}
