import BenchmarkSupport
import Foundation

/// A docserver on one store, with a set-up connection that reads the IDs and versions
/// the load runs need.
final class ServerSession {
    let server: DocServer
    let client: LineClient

    init(server: DocServer) throws {
        self.server = server
        self.client = try LineClient(host: server.host, port: server.port)
    }

    /// The IDs of every object of `entity` (the first `limit`, when not 0), from the server
    /// (`fetch`, `resultType` `ids`).
    func ids(of entity: String, limit: Int = 0) throws -> [String] {
        let result = try client.call("fetch", params: #"{"entity":"\#(entity)","resultType":"ids","limit":\#(limit)}"#)
        guard let ids = (result as? [String: Any])?["ids"] as? [String] else {
            throw BenchmarkError("fetch of \(entity) IDs: no `ids` array in the result")
        }
        return ids
    }

    /// `get` of every one of `ids`, 1,000 per request, answers discarded (not timed): after
    /// this the server has sent every object once, as it will have in a steady state.
    func touch(_ ids: [String]) throws {
        for start in stride(from: 0, to: ids.count, by: 1000) {
            let chunk = ids[start..<min(start + 1000, ids.count)]
            try client.callDiscardingResult("get", params: #"{"ids":["# + chunk.map(jsonString).joined(separator: ",") + "]}")
        }
    }

    /// The current version of each of `ids` (`get`).
    func versions(of ids: [String]) throws -> [String: Int] {
        let result = try client.call("get", params: #"{"ids":["# + ids.map(jsonString).joined(separator: ",") + "]}")
        guard let objects = (result as? [String: Any])?["objects"] as? [Any] else {
            throw BenchmarkError("get: no `objects` array in the result")
        }
        var versions: [String: Int] = [:]
        for case let object as [String: Any] in objects {
            if let id = object["id"] as? String, let version = (object["version"] as? NSNumber)?.intValue { versions[id] = version }
        }
        guard versions.count == Set(ids).count else { throw BenchmarkError("get: \(ids.count - versions.count) of the Songs are missing") }
        return versions
    }
}
