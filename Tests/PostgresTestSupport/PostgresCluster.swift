import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ServerTestSupport
import Synchronization

/// A throwaway PostgreSQL cluster for the tests: `initdb` + `pg_ctl` in a temporary
/// directory, on a free port of 127.0.0.1, run as an unprivileged user (`nobody` when the
/// tests run as root, as PostgreSQL refuses to run as root), stopped when the test process
/// exits. When PostgreSQL's programs are missing, it installs Debian's `postgresql` package
/// (`apt-get update`, `apt-get install -y postgresql`) once.
///
/// Tests take it through `.enabled(if: PostgresCluster.isInstalled, …)`: they are skipped, with
/// that message, only when PostgreSQL is missing and cannot be installed; a cluster that is
/// installed but does not start fails them.
public enum PostgresCluster {
    /// The folder of `initdb`, `pg_ctl` and `postgres`, found or installed; nil when neither worked.
    public static let binaries: URL? = locateOrInstall()

    /// Whether PostgreSQL's programs are there (found, or installed now).
    public static var isInstalled: Bool { binaries != nil }

    /// The message of a skipped test.
    public static let skipReason = "PostgreSQL is not installed and could not be installed from Debian's packages (apt-get install postgresql)"

    private static let started: Result<RunningCluster, HarnessError> = {
        guard let binaries else { return .failure(HarnessError("PostgreSQL is not installed")) }
        do {
            let cluster = try RunningCluster(binaries: binaries)
            atexit { PostgresCluster.stopAtExit() }
            return .success(cluster)
        } catch let error as HarnessError {
            return .failure(error)
        } catch {
            return .failure(HarnessError("\(error)"))
        }
    }()

    /// The cluster, started on first use.
    public static func shared() throws -> RunningCluster { try started.get() }

    /// A new, empty database of the shared cluster, as a store URL.
    public static func newDatabase() throws -> URL { try shared().newDatabase() }

    private static func stopAtExit() {
        if case .success(let cluster) = started { cluster.stop() }
    }

    private static func locateOrInstall() -> URL? {
        if let found = locate() { return found }
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/apt-get") else { return nil }
        FileHandle.standardError.write(Data("PostgreSQL is missing: installing Debian's postgresql package\n".utf8))
        let environment = ["DEBIAN_FRONTEND": "noninteractive"]
        guard (try? run("/usr/bin/apt-get", ["update"], environment: environment)) != nil,
              (try? run("/usr/bin/apt-get", ["install", "-y", "postgresql"], environment: environment)) != nil
        else { return nil }
        return locate()
    }

    /// The folder holding initdb, pg_ctl and postgres: on the PATH, or Debian's /usr/lib/postgresql/<version>/bin.
    private static func locate() -> URL? {
        let fileManager = FileManager.default
        func complete(_ folder: URL) -> Bool {
            ["initdb", "pg_ctl", "postgres"].allSatisfy { fileManager.isExecutableFile(atPath: folder.appendingPathComponent($0).path) }
        }
        var candidates: [URL] = []
        let debian = URL(fileURLWithPath: "/usr/lib/postgresql")
        if let versions = try? fileManager.contentsOfDirectory(atPath: debian.path) {
            let sorted = versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
            candidates += sorted.map { debian.appendingPathComponent($0).appendingPathComponent("bin") }
        }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let url = URL(fileURLWithPath: String(folder))
            // A PATH entry may hold links to Debian's programs (initdb only): follow pg_ctl's link.
            let link = url.appendingPathComponent("pg_ctl").resolvingSymlinksInPath().deletingLastPathComponent()
            candidates += [url, link]
        }
        return candidates.first(where: complete)
    }

    /// Runs a program to its end; its output is returned, a failure throws with it.
    ///
    /// Through `system(3)`, not `Process`: Foundation's `Process` learns of a child's end from a
    /// descriptor the child inherits, and `pg_ctl start` leaves a server running that holds it.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("graph-postgres-output-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outputURL) }
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let assignments = environment.map { "\($0.key)=\(quoted($0.value))" }
        let command = (assignments + [quoted(program)] + arguments.map(quoted)).joined(separator: " ")
            + " </dev/null >\(quoted(outputURL.path)) 2>&1"
        let status = system(command)
        let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw HarnessError("\(program) \(arguments.joined(separator: " ")) failed (status \(status)): \(text.suffix(2000))")
        }
        return text
    }
}

/// One running cluster (see ``PostgresCluster``).
public final class RunningCluster: Sendable {
    public let port: Int
    let directory: URL
    let binaries: URL
    /// The user the server runs as, when the tests run as root.
    let user: String?
    /// The certificates the server offers TLS with (`ssl=on`), nil when openssl is missing.
    public let tls: ClusterCertificates?
    private let databases = Mutex(0)

    init(binaries: URL) throws {
        self.binaries = binaries
        directory = URL(fileURLWithPath: "/tmp/graph-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        user = getuid() == 0 ? "nobody" : nil
        if let user { try PostgresCluster.run("/bin/chown", ["-R", user, directory.path]) }
        port = try unusedPort()
        let data = directory.appendingPathComponent("data").path
        tls = try? ClusterCertificates(in: directory.appendingPathComponent("tls"), owner: user)
        try runAsUser("initdb", ["-D", data, "-U", "graph", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"])
        let ssl = tls.map { " -c ssl=on -c ssl_cert_file=\($0.serverCertificate.path) -c ssl_key_file=\($0.serverKey.path)" } ?? ""
        try runAsUser("pg_ctl", ["-D", data, "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "120",
                                 "-o", "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" + ssl,
                                 "start"])
    }

    /// Runs a statement with `psql` as the cluster's superuser in `database`, and returns its
    /// output (unaligned, tuples only).
    public func psql(_ statement: String, database: String) throws -> String {
        try PostgresCluster.run(binaries.appendingPathComponent("psql").path,
                                ["-h", "127.0.0.1", "-p", String(port), "-U", "graph", "-d", database, "-At", "-c", statement])
    }

    private func runAsUser(_ program: String, _ arguments: [String]) throws {
        let path = binaries.appendingPathComponent(program).path
        if let user {
            try PostgresCluster.run("/usr/sbin/runuser", ["-u", user, "--", path] + arguments)
        } else {
            try PostgresCluster.run(path, arguments)
        }
    }

    /// A new empty database, as a store URL.
    public func newDatabase() throws -> URL {
        let name = databases.withLock { count -> String in
            count += 1
            return "graph_test_\(getpid())_\(count)"
        }
        try PostgresCluster.run(binaries.appendingPathComponent("createdb").path,
                                ["-h", "127.0.0.1", "-p", String(port), "-U", "graph", name])
        guard let url = URL(string: "postgresql://graph@127.0.0.1:\(port)/\(name)") else {
            throw HarnessError("no URL for the database \(name)")
        }
        return url
    }

    /// Stops the server at once and removes its directory.
    func stop() {
        let data = directory.appendingPathComponent("data").path
        try? runAsUser("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A certificate authority made for the test cluster, the server's certificate it signed (for
/// `localhost` and 127.0.0.1) and its key, and a second authority that signed nothing of it.
public struct ClusterCertificates: Sendable {
    /// The authority that signed the server's certificate (PEM).
    public let authority: URL
    /// An authority the server's certificate does not come from (PEM).
    public let otherAuthority: URL
    /// The server's certificate, signed by `authority`, for localhost and 127.0.0.1 (PEM).
    public let serverCertificate: URL
    /// Its private key (PEM, mode 0600).
    public let serverKey: URL

    /// Makes them with openssl in `folder`, readable by the server's user `owner`.
    public init(in folder: URL, owner: String?) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func openssl(_ arguments: [String]) throws { _ = try PostgresCluster.run("/usr/bin/openssl", arguments) }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(["req", "-x509"] + key + ["-keyout", path("ca.key"), "-out", path("ca.crt"), "-days", "2", "-subj", "/CN=graph test CA"])
        try openssl(["req", "-x509"] + key + ["-keyout", path("other.key"), "-out", path("other.crt"), "-days", "2", "-subj", "/CN=another CA"])
        try openssl(["req"] + key + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost"])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: path("san.ext"), atomically: true, encoding: .utf8)
        try openssl(["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"), "-CAcreateserial",
                     "-out", path("server.crt"), "-days", "2", "-extfile", path("san.ext")])
        if let owner { _ = try PostgresCluster.run("/bin/chown", ["-R", owner, folder.path]) }
        _ = try PostgresCluster.run("/bin/chmod", ["600", path("server.key")])
        authority = folder.appendingPathComponent("ca.crt")
        otherAuthority = folder.appendingPathComponent("other.crt")
        serverCertificate = folder.appendingPathComponent("server.crt")
        serverKey = folder.appendingPathComponent("server.key")
    }
}
