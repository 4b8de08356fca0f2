import BenchmarkSupport
import Foundation

/// Clients that each update their own object as fast as the server answers, for a time.
enum SaveLoad {
    /// Saves per second over `seconds`, one client per ID, spread over the servers' ports.
    static func run(ports: [Int], ids: [String], seconds: Double) throws -> (rate: Double, errors: Int) {
        let clients = try ids.indices.map { try RPCClient(port: ports[$0 % ports.count]) }
        let counts = Counter()
        let group = DispatchGroup()
        let start = Date(), deadline = start.addingTimeInterval(seconds)
        for (client, id) in zip(clients, ids) {
            group.enter()
            Thread {
                defer { group.leave() }
                var version = (try? client.result("get", ["ids": [id]])["objects"] as? [[String: Any]])??.first?["version"] as? Int ?? 1
                var plays = 0
                while Date() < deadline {
                    plays += 1
                    do {
                        let answer = try client.result("save", ["update": [["id": id, "version": version, "values": ["plays": plays]]]])
                        version = (answer["versions"] as? [String: Int])?[id] ?? version + 1
                        counts.add(saves: 1)
                    } catch {
                        counts.add(errors: 1)
                        version = (try? client.result("get", ["ids": [id]])["objects"] as? [[String: Any]])??.first?["version"] as? Int ?? version
                    }
                }
            }.start()
        }
        group.wait()
        let elapsed = Date().timeIntervalSince(start)
        return (Double(counts.saves) / elapsed, counts.errors)
    }
}

/// Clients that repeat one read for a time.
enum ReadLoad {
    /// Reads per second over `seconds` by `clients` clients.
    static func run(port: Int, clients count: Int, seconds: Double, read: @escaping @Sendable (RPCClient) throws -> Void) throws -> Double {
        let clients = try (0..<count).map { _ in try RPCClient(port: port) }
        let counts = Counter()
        let group = DispatchGroup()
        let start = Date(), deadline = start.addingTimeInterval(seconds)
        for client in clients {
            group.enter()
            Thread {
                defer { group.leave() }
                while Date() < deadline {
                    if (try? read(client)) != nil { counts.add(saves: 1) } else { counts.add(errors: 1) }
                }
            }.start()
        }
        group.wait()
        return Double(counts.saves) / Date().timeIntervalSince(start)
    }
}

/// Counts from several threads.
final class Counter: @unchecked Sendable {
    // @unchecked: every member is touched with `lock` held.
    private let lock = NSLock()
    private var done = 0, failed = 0

    func add(saves: Int = 0, errors: Int = 0) { lock.withLock { done += saves; failed += errors } }
    var saves: Int { lock.withLock { done } }
    var errors: Int { lock.withLock { failed } }
}
