import Foundation
import ServerTestSupport

extension LineClient {
    /// Sends a request and reads lines until its answer: the notifications read before it
    /// are returned beside it, in order.
    func callCollecting(_ method: String, _ params: [String: Any], id: Int) throws -> (answer: JSON, notifications: [JSON]) {
        let data = try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": id, "method": method, "params": params])
        try sendLine(String(decoding: data, as: UTF8.self))
        var notifications: [JSON] = []
        while true {
            let message = try JSON(parsing: readLine())
            if message["id"].isMissing {
                notifications.append(message)
            } else {
                return (message, notifications)
            }
        }
    }

    /// Reads `count` notifications; throws when one does not come within the timeout.
    func notifications(_ count: Int) throws -> [JSON] {
        try (0..<count).map { _ in try JSON(parsing: readLine()) }
    }

    /// Saves a Tag labelled `label`; returns its ID and the commit's `seq`.
    @discardableResult
    func insertTag(_ label: String) throws -> (id: String, seq: Int) {
        let result = try self.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": label]]]])
        guard let id = result["ids"]["t"].string, let seq = result["seq"].int else { throw HarnessError("no id or seq in \(result)") }
        return (id, seq)
    }
}
