import BenchmarkSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL cluster for the benchmark: `initdb` + `pg_ctl` in a temporary directory, on a
/// free port of 127.0.0.1, as `nobody` when run as root, with PostgreSQL's durable defaults
/// (fsync and synchronous commit on: the saves measured are durable). Stopped by ``stop()``.
final class BenchCluster {
    let binaries: URL
    let directory: URL
    let port: Int
    private let user: String?

    init() throws {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        guard let version = versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }).first else {
            throw BenchmarkError("PostgreSQL is not installed (apt-get install postgresql)")
        }
        binaries = root.appendingPathComponent(version).appendingPathComponent("bin")
        directory = URL(fileURLWithPath: "/tmp/graph-bench-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        user = getuid() == 0 ? "nobody" : nil
        if let user { _ = try runProgram("/bin/chown", ["-R", user, directory.path]) }
        port = try Self.freePort()
        let data = directory.appendingPathComponent("data").path
        try run("initdb", ["-D", data, "-U", "graph", "-A", "trust", "-E", "UTF8", "--no-locale"])
        try run("pg_ctl", ["-D", data, "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "120",
                           "-o", "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c max_connections=300", "start"])
        ChildProcessReaper.registerPostmaster(dataDirectory: data)  // stopped with the benchmark, if a signal ends it
    }

    /// Runs one of PostgreSQL's programs (as the cluster's user) and returns its output.
    @discardableResult
    func run(_ program: String, _ arguments: [String]) throws -> String {
        let path = binaries.appendingPathComponent(program).path
        let (executable, all) = user.map { ("/usr/sbin/runuser", ["-u", $0, "--", path] + arguments) } ?? (path, arguments)
        // Through a file, not a pipe: `pg_ctl start` leaves a server holding the pipe open.
        let output = directory.appendingPathComponent("output-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let status = system(([executable] + all).map(quoted).joined(separator: " ") + " </dev/null >\(quoted(output.path)) 2>&1")
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw BenchmarkError("\(program) failed (\(status)): \(text.suffix(1500))") }
        return text
    }

    /// A new database, as a store URL.
    func newDatabase(_ name: String) throws -> String {
        try run("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "graph", name])
        return "postgresql://graph@127.0.0.1:\(port)/\(name)"
    }

    func stop() {
        let data = directory.appendingPathComponent("data").path
        let postmaster = ChildProcessReaper.registerPostmaster(dataDirectory: data)
        _ = try? run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"])
        if let postmaster { ChildProcessReaper.unregister(postmaster) }
        try? FileManager.default.removeItem(at: directory)
    }

    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw BenchmarkError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
