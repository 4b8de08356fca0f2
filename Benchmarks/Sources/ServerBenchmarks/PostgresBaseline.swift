import BenchmarkSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// PostgreSQL on the same machine, answering the same lookup as docserver's indexed `fetch`
/// (a Song by an indexed `plays`), measured by its own pgbench: a private cluster made with
/// `initdb` in the benchmark's directory, run by `pg_ctl` as the unprivileged `postgres`
/// user when the benchmark runs as root, listening on a free loopback port only.
struct PostgresBaseline {
    let bin: String
    let version: String
    let directory: URL
    let port: Int
    /// `runuser -u postgres --` when running as root (PostgreSQL refuses to run as root).
    let prefix: [String]

    /// Finds PostgreSQL 15's programs; installs Debian's `postgresql` with apt-get when missing.
    static func locate() throws -> String {
        let bin = "/usr/lib/postgresql/15/bin"
        if !FileManager.default.isExecutableFile(atPath: bin + "/pg_ctl") {
            FileHandle.standardError.write(Data("installing postgresql with apt-get\n".utf8))
            if try runProgram("/usr/bin/env", ["apt-get", "install", "-y", "postgresql"]).status != 0 {
                _ = try runProgram("/usr/bin/env", ["apt-get", "update"])
                _ = try runProgram("/usr/bin/env", ["apt-get", "install", "-y", "postgresql"])
            }
        }
        guard FileManager.default.isExecutableFile(atPath: bin + "/pg_ctl") else {
            throw BenchmarkError("PostgreSQL 15 is needed (apt-get install postgresql): no \(bin)/pg_ctl")
        }
        return bin
    }

    /// A new cluster in `parent`/postgres, started on a free port.
    static func start(in parent: URL) throws -> PostgresBaseline {
        let bin = try locate()
        let directory = parent.appendingPathComponent("postgres")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let prefix = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
        if getuid() == 0 { _ = try runProgram("/bin/chown", ["-R", "postgres:", directory.path]) }
        let data = directory.appendingPathComponent("data").path
        try check(run(prefix, bin + "/initdb", ["-D", data, "-U", "bench", "--auth=trust", "-E", "UTF8", "--no-sync"], in: parent), "initdb")
        let port = try freePort()
        let settings = "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c max_connections=120 -c shared_buffers=256MB"
        // Spawned directly, its output to /dev/null, and waited for with waitpid: the server
        // pg_ctl leaves running inherits what pg_ctl holds, so a pipe (or Foundation's own
        // watch on the child) would never see its end.
        let arguments = (prefix.isEmpty ? [bin + "/pg_ctl"] : prefix + [bin + "/pg_ctl"])
            + ["-D", data, "-o", settings, "-l", directory.appendingPathComponent("server.log").path, "-w", "start"]
        let status = try spawnAndWait(arguments)
        guard status == 0 else { throw BenchmarkError("pg_ctl start failed (wait status \(status))") }
        ChildProcessReaper.registerPostmaster(dataDirectory: data)  // stopped with the benchmark, if a signal ends it
        let version = (try? run([], bin + "/postgres", ["--version"], in: directory).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "?"
        return PostgresBaseline(bin: bin, version: version, directory: directory, port: port, prefix: prefix)
    }

    /// Runs `arguments[0]` with the rest, standard input on /dev/null, output and errors into
    /// `output` (or /dev/null); its wait status. Spawned and reaped here: through Foundation's
    /// `Process` pgbench's -T never ended and its end was never seen in this program.
    private static func spawnAndWait(_ arguments: [String], output: String = "/dev/null") throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // No blocked or ignored signals: this program's threads block some (and ignore SIGPIPE
        // and others), which a child inherits; pgbench's -T timer is a SIGALRM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw BenchmarkError("cannot start \(arguments[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// Runs `program` (after `prefix`), its output and errors in a file of `directory`.
    private static func run(_ prefix: [String], _ program: String, _ arguments: [String], in directory: URL) throws -> (status: Int32, output: String) {
        let output = directory.appendingPathComponent("output-\(UUID().uuidString).txt").path
        let status = try spawnAndWait(prefix + [program] + arguments, output: output)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: output)
        return (status, text)
    }

    private static func check(_ result: (status: Int32, output: String), _ what: String) throws {
        guard result.status == 0 else { throw BenchmarkError("\(what) failed (exit status \(result.status)): \(result.output.suffix(500))") }
    }

    /// Runs SQL with psql over TCP (its errors go to standard error).
    func sql(_ statements: String, database: String = "postgres") throws {
        try Self.check(Self.run([], bin + "/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "bench", "-d", database, "-q",
                                                    "-v", "ON_ERROR_STOP=1", "-c", statements], in: directory), "psql")
    }

    /// Runs `COPY (select) TO STDOUT` with psql, its rows written to /dev/null: PostgreSQL
    /// sending a result as fast as it can, for the stream's peer; its seconds.
    func copyOut(_ select: String, database: String) throws -> Double {
        let started = MonotonicClock.nanoseconds()
        try Self.check(Self.run([], bin + "/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "bench", "-d", database, "-q", "-o", "/dev/null",
                                                    "-v", "ON_ERROR_STOP=1", "-c", "COPY (\(select)) TO STDOUT"], in: directory), "psql COPY")
        return Double(MonotonicClock.nanoseconds() - started) / 1e9
    }

    /// The rows of one query, as psql prints them unaligned (`-At`: one row a line, `|` between columns).
    func query(_ statement: String, database: String) throws -> [String] {
        let result = try Self.run([], bin + "/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "bench", "-d", database, "-At",
                                                      "-v", "ON_ERROR_STOP=1", "-c", statement], in: directory)
        try Self.check(result, "psql")
        return result.output.split(separator: "\n").map(String.init)
    }

    /// A table `songs` of `count` rows shaped like the docserver store's Songs (distinct
    /// `plays` 0..<count, title `Song <n>`), with a B-tree index on `plays` and on `title`.
    func loadSongs(_ count: Int) throws {
        try sql("""
            CREATE TABLE songs (id bigint PRIMARY KEY, title text NOT NULL, plays bigint NOT NULL, rating double precision, album bigint);
            INSERT INTO songs SELECT i, 'Song ' || i, i, (i % 50) / 10.0, i % 90000 FROM generate_series(0, \(count - 1)) AS i;
            CREATE INDEX songs_plays ON songs (plays);
            CREATE INDEX songs_title ON songs (title);
            """)
        try sql("VACUUM ANALYZE songs")  // alone: VACUUM cannot run in the transaction of a multi-statement string
    }

    /// pgbench with `clients` clients for `seconds` running `script` (pgbench's script
    /// language); `mode` `simple` (every query sent as text and parsed, pgbench's default) or
    /// `prepared`. Returns transactions (here: one lookup each) per second.
    func pgbench(script: String, clients: Int, seconds: Int, mode: String, database: String = "postgres") throws -> Double {
        let file = directory.appendingPathComponent("lookup-\(UUID().uuidString).sql")
        try Data(script.utf8).write(to: file)
        return try pgbench(["-f", file.path], clients: clients, seconds: seconds, mode: mode, database: database)
    }

    /// pgbench's own transaction `builtin` (`-N`: simple update, `-S`: select only) on the
    /// tables of ``pgbenchInitialize(database:)``; transactions per second.
    func pgbench(builtin: String, clients: Int, seconds: Int, mode: String, database: String) throws -> Double {
        try pgbench([builtin], clients: clients, seconds: seconds, mode: mode, database: database)
    }

    /// pgbench's tables at scale 1 (100,000 accounts) in `database`.
    func pgbenchInitialize(database: String) throws {
        try Self.check(Self.run([], bin + "/pgbench", ["-i", "-q", "-s", "1", "-h", "127.0.0.1", "-p", "\(port)", "-U", "bench", database],
                                in: directory), "pgbench -i")
    }

    private func pgbench(_ transaction: [String], clients: Int, seconds: Int, mode: String, database: String) throws -> Double {
        let result = try Self.run([], bin + "/pgbench", ["-n", "-M", mode, "-c", "\(clients)", "-j", "2", "-T", "\(seconds)",
                                                         "-h", "127.0.0.1", "-p", "\(port)", "-U", "bench"] + transaction + [database], in: directory)
        guard result.status == 0,
              let line = result.output.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
              let tps = Double(line.dropFirst(6).prefix { $0 != " " }) else {
            throw BenchmarkError("pgbench failed (exit status \(result.status)): \(result.output.suffix(500))")
        }
        let failed = result.output.split(separator: "\n").first { $0.hasPrefix("number of failed transactions") }
        if let failed, !failed.contains(": 0 ") { say("    pgbench: \(failed)") }
        return tps
    }

    /// Stops the cluster (`pg_ctl stop -m fast`).
    func stop() {
        let data = directory.appendingPathComponent("data").path
        let postmaster = ChildProcessReaper.registerPostmaster(dataDirectory: data)
        _ = try? Self.spawnAndWait(prefix + [bin + "/pg_ctl", "-D", data, "-m", "fast", "-w", "stop"])
        if let postmaster { ChildProcessReaper.unregister(postmaster) }
    }
}
