import Foundation
import PostgresTestSupport
import ServerTestSupport

/// `docserver serve` processes on one database of the test cluster, with the sample model.
struct DatabaseServers {
    let database: URL
    let servers: [ServerProcess]

    /// `count` servers on a new, empty database, started with `arguments` (`--cache-bytes 1`).
    init(count: Int, arguments: [String] = []) throws {
        let database = try PostgresCluster.newDatabase()
        self.database = database
        servers = try (0..<count).map { _ in try Self.server(on: database, arguments: arguments) }
    }

    /// Another server on `database`, its log in a temporary directory of its own.
    static func server(on database: URL, arguments: [String] = []) throws -> ServerProcess {
        let directory = try TemporaryDirectory()
        return try ServerProcess(store: nil, arguments: ["--store", database.absoluteString] + arguments, workingDirectory: directory.url,
                                 keeping: directory, timeout: 60)
    }

    /// A new connection to server `index`.
    func connect(_ index: Int) throws -> WireClient { try WireClient(port: servers[index].port) }
}

extension Dictionary where Key == String, Value == Any {
    /// The permanent ID a save gave temporary ID `temporary`.
    func id(_ temporary: String) throws -> String {
        guard let ids = self["ids"] as? [String: String], let id = ids[temporary] else { throw HarnessError("no ID for \(temporary) in \(self)") }
        return id
    }

    /// The save's commit number.
    var seq: Int64 { (self["seq"] as? NSNumber)?.int64Value ?? -1 }

    /// The error code of an answer (nil: a result).
    var errorCode: Int? { (self["error"] as? [String: Any])?["code"] as? Int }

    /// The objects of a `get` or `fetch` answer (null for a missing one).
    var objects: [[String: Any]?] { (self["objects"] as? [Any] ?? []).map { $0 as? [String: Any] } }
}
