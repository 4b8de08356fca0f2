import BenchmarkSupport
import Foundation

extension ServerBenchmark {
    /// The least a SwiftNIO line server costs per request here (`--get --nio-floor PATH`):
    /// `NIOLineFloor` answers every `get` line with the same real answer `answer` (no parsing,
    /// no lookup, no encoding), measured by the same load generator as the docserver's `get`,
    /// alternated with Redis through it. Prints each server's CPU per answer.
    func measureNIOFloor(binary: String, answer: [UInt8], workload: @escaping WorkloadFactory, redis: RedisServers) async throws {
        let (child, port) = try startNIOFloor(binary: binary, arguments: [String(decoding: answer, as: UTF8.self)], log: "nio-floor.log")
        defer { child.stop() }
        say("NIOLineFloor (SwiftNIO, one event loop, a line decoder and a fixed answer of \(answer.count + 1) bytes per line, flushed per read):")
        var floorRates: [Double] = [], floorMicros: [Double] = [], redisMicros: [Double] = []
        for round in 1...3 {
            let redisFigure = try await redisGetThroughLoadGenerator(redis, clients: 50, note: ", before floor round \(round)")
            if let cpu = redisFigure.cpu { redisMicros.append(cpu.server / redisFigure.requestsPerSecond * 1e6) }
            let start = CPUShare.Start(serverPID: child.processIdentifier)
            let load = LoadGenerator(group: group, host: "127.0.0.1", port: port, warmup: options.warmup, duration: options.duration)
            let measurement = try await load.run(connections: 50, workload: workload)
            let cpu = start.share()
            if measurement.errors > 0 || measurement.answers == 0 {
                throw BenchmarkError("NIOLineFloor failed: \(measurement.errors) errors, first: \(measurement.firstError ?? "no answers")")
            }
            floorRates.append(measurement.requestsPerSecond)
            floorMicros.append(cpu.server / measurement.requestsPerSecond * 1e6)
            say("NIOLineFloor, the same get lines, 50 connections, round \(round) of 3:")
            say("    \(grouped(Int(measurement.requestsPerSecond.rounded()))) req/s, p50 \(fixed(measurement.p50, 3)) ms,"
                + " p99 \(fixed(measurement.p99, 3)) ms (\(cpu.describe(server: "NIOLineFloor", client: "load client")));"
                + " \(fixed(floorMicros[floorMicros.count - 1], 1)) µs of server CPU per answer")
        }
        let docserverMicros = get50?.cpuPerAnswer ?? []
        say("server CPU per answer, medians: NIOLineFloor \(fixed(median(floorMicros), 1)) µs (\(grouped(Int(median(floorRates)))) req/s),"
            + " docserver get \(fixed(median(docserverMicros), 1)) µs, Redis GET \(fixed(median(redisMicros), 1)) µs (both through our load generator)")
        say()
    }

    /// Starts `NIOLineFloor` with `arguments`; the process and the port it listens on.
    func startNIOFloor(binary: String, arguments: [String], log: String) throws -> (ChildProcess, Int) {
        let child = try ChildProcess(name: "NIOLineFloor", executable: binary, arguments: arguments,
                                     logURL: directory.appendingPathComponent(log))
        guard let line = try child.readLine(timeout: 10), line.hasPrefix("listening on "),
              let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...]) else {
            let tail = child.logTail()
            child.stop()
            throw BenchmarkError("NIOLineFloor printed no `listening on HOST:PORT` line; its log:\n\(tail)")
        }
        return (child, port)
    }
}
