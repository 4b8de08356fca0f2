import BenchmarkSupport
import Foundation

extension ServerBenchmark {
    /// `--postgres-cache`, step 5: every Song in one `fetch` with `stream: true` through the
    /// bounded cache's server (its rows sent on as PostgreSQL sends them), its time, the server's
    /// CPU and its peak resident memory while it streams; beside psql's `COPY` of the statement
    /// the server sends (PostgreSQL sending the same rows as fast as it can, to /dev/null).
    func streamEverySong(_ server: DocServer, session: ServerSession, cluster: PostgresBaseline, songs: Int) throws {
        let pid = server.processIdentifier
        let sampler = ResidentSampler(pid: pid)
        let before = ProcessCPU.residentBytes(pid: pid)
        let cpu = ProcessCPU.seconds(pid: pid)
        let started = MonotonicClock.nanoseconds()
        let streamed = try session.client.stream(params: #"{"entity":"Song","stream":true,"explain":true}"#)
        let seconds = Double(MonotonicClock.nanoseconds() - started) / 1e9
        let serverCPU = ProcessCPU.seconds(pid: pid) - cpu
        let peak = sampler.stop()
        let count = streamed.result["count"] as? Int ?? 0
        guard count == songs else { throw BenchmarkError("the stream gave \(count) Songs of \(songs)") }
        let statement = try Self.statement(explained: streamed.result)
        let copySeconds = try cluster.copyOut(statement, database: "graph")
        say("5. every Song in one streamed fetch: \(grouped(count)) objects, \(megabytes(streamed.bytes)) in \(grouped(streamed.parts)) parts, "
            + "\(fixed(seconds, 1)) s = \(grouped(Int(Double(count) / seconds))) objects/s; server CPU \(fixed(serverCPU / Double(count) * 1e6, 2)) µs per object")
        say("    resident memory \(megabytes(before)) before, at most \(megabytes(peak)) while streaming (sampled every 20 ms)")
        say("    psql COPY (the server's statement) TO STDOUT, to /dev/null: \(fixed(copySeconds, 1)) s = \(grouped(Int(Double(count) / copySeconds))) rows/s; "
            + "the stream takes \(fixed(seconds / copySeconds, 2)) x its time")
        recordFigure("every Song in one streamed `fetch` through a 64 MiB cache over PostgreSQL", data: "\(grouped(count)) Songs, \(megabytes(streamed.bytes)) of answer",
                     result: "\(fixed(seconds, 1)) s (\(fixed(seconds / copySeconds, 2)) x psql `COPY` of the same statement, \(fixed(copySeconds, 1)) s); "
                        + "server CPU \(fixed(serverCPU / Double(count) * 1e6, 2)) µs per object; resident at most \(megabytes(peak)) (\(megabytes(before)) before)")
    }

    /// The statement the server sent for a fetch, from the plan of its answer (`explain`).
    private static func statement(explained result: [String: Any]) throws -> String {
        guard let plan = (result["plan"] as? [String: Any])?["sql"] as? String,
              let select = plan.range(of: "SELECT "), !plan.contains("$1") else {
            throw BenchmarkError("the stream's plan gave no statement without parameters: \(String(describing: result["plan"]).prefix(300))")
        }
        return String(plan[select.lowerBound...])
    }
}

/// Samples a process's resident memory every 20 ms on a thread of its own, until stopped;
/// keeps the highest.
private final class ResidentSampler: @unchecked Sendable {
    // @unchecked: `highest` and `running` only with `lock` held.
    private let lock = NSLock()
    private var highest = 0
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init(pid: Int32) {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let resident = ProcessCPU.residentBytes(pid: pid)
                lock.withLock { highest = max(highest, resident) }
                usleep(20_000)
            }
            done.signal()
        }
    }

    /// Stops sampling; the highest resident memory seen, in bytes.
    func stop() -> Int {
        lock.withLock { running = false }
        done.wait()
        return lock.withLock { highest }
    }
}
