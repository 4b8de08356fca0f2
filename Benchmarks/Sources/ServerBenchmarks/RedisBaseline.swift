import BenchmarkSupport
import Foundation

/// Redis on the same machine, measured by its own redis-benchmark: the yardstick the
/// issue's targets are stated against.
struct RedisBaseline {
    /// One redis-benchmark figure (from `--csv`, which has the latency percentiles).
    struct Figure {
        let requestsPerSecond: Double
        let p50: Double
        let p99: Double
        /// CPU of redis-server, redis-benchmark and the rest of the machine during the run.
        let cpu: CPUShare?
    }

    /// A redis-server this benchmark started.
    struct Server {
        let child: ChildProcess
        let port: Int
    }

    let serverPath: String
    let benchmarkPath: String
    let cliPath: String
    let version: String

    /// Finds redis-server, redis-benchmark and redis-cli; installs them with apt-get when missing.
    static func locate() throws -> RedisBaseline {
        if which("redis-server") == nil || which("redis-benchmark") == nil || which("redis-cli") == nil {
            FileHandle.standardError.write(Data("installing redis-server redis-tools with apt-get\n".utf8))
            if try runProgram("/usr/bin/env", ["apt-get", "install", "-y", "redis-server", "redis-tools"]).status != 0 {
                _ = try runProgram("/usr/bin/env", ["apt-get", "update"])
                _ = try runProgram("/usr/bin/env", ["apt-get", "install", "-y", "redis-server", "redis-tools"])
            }
        }
        guard let server = which("redis-server"), let benchmark = which("redis-benchmark"), let cli = which("redis-cli") else {
            throw BenchmarkError("redis-server, redis-benchmark and redis-cli are needed (apt-get install redis-server redis-tools)")
        }
        let version = try runProgram(server, ["--version"]).output.split(separator: " ").first { $0.hasPrefix("v=") }.map { String($0.dropFirst(2)) } ?? "?"
        return RedisBaseline(serverPath: server, benchmarkPath: benchmark, cliPath: cli, version: version)
    }

    /// Starts redis-server on a free port with `options` (e.g. `--appendonly yes`), its files
    /// in `directory`; returns it once it answers PING.
    func start(options: [String], directory: URL, name: String) throws -> Server {
        let port = try freePort()
        let arguments = ["--port", "\(port)", "--bind", "127.0.0.1", "--daemonize", "no", "--dir", directory.path,
                         "--logfile", directory.appendingPathComponent("\(name).log").path] + options
        let server = try ChildProcess(name: name, executable: serverPath, arguments: arguments,
                                      logURL: directory.appendingPathComponent("\(name).stderr"))
        for _ in 0..<500 {
            if (try? runProgram(cliPath, ["-p", "\(port)", "ping"], quiet: true))?.output.hasPrefix("PONG") == true { return Server(child: server, port: port) }
            usleep(10_000)
        }
        server.stop()
        throw BenchmarkError("redis-server did not answer PING within 5 s")
    }

    /// `SET key value` (the key redis-benchmark's GET test reads).
    func set(on server: Server, key: String, value: String) throws {
        let result = try runProgram(cliPath, ["-p", "\(server.port)", "set", key, value])
        guard result.output.hasPrefix("OK") else { throw BenchmarkError("redis-cli set: \(result.output)") }
    }

    /// `redis-benchmark -p port -t test -c clients -n requests --csv`.
    func benchmark(on server: Server, test: String, clients: Int, requests: Int) throws -> Figure {
        let start = CPUShare.Start(serverPID: server.child.processIdentifier, client: .endedChildren)
        let result = try runProgram(benchmarkPath, ["-p", "\(server.port)", "-t", test, "-c", "\(clients)", "-n", "\(requests)", "--csv"])
        let cpu = start.share()
        // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
        for line in result.output.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }
            guard fields.first?.uppercased() == test.uppercased(), fields.count >= 7, let rps = Double(fields[1]) else { continue }
            return Figure(requestsPerSecond: rps, p50: Double(fields[4]) ?? .nan, p99: Double(fields[6]) ?? .nan, cpu: cpu)
        }
        throw BenchmarkError("cannot read redis-benchmark's output (exit status \(result.status)): \(result.output.suffix(500))")
    }
}
