import BenchmarkSupport
import Foundation

extension ServerBenchmark {
    /// The least a durable save costs a SwiftNIO server here (`--saves --nio-floor PATH`):
    /// `NIOLineFloor --saves` reads each update line's ID and version, appends the line to a
    /// journal, makes it durable (`pwrite`, `fdatasync`) and answers as the docserver does, with
    /// no model, no store, no validation, no read state. Two shapes: a writer thread with group
    /// commits (the docserver's) and the event loop writing once per turn (Redis's
    /// `appendfsync always`). Each round measures Redis's durable SET through the same load
    /// generator, the docserver (`session`), and the two floors, back to back; prints each one's
    /// server CPU per save, and the medians.
    func measureSaveFloor(binary: String, session: ServerSession, load: LoadGenerator, owned: [String], store: BenchmarkStore,
                          redis: RedisServers) async throws {
        let journals = directory.appendingPathComponent("save-floor-\(MonotonicClock.nanoseconds())")
        try FileManager.default.createDirectory(at: journals, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: journals) }
        var floors: [(name: String, child: ChildProcess, port: Int)] = []
        defer { for floor in floors { floor.child.stop() } }
        for shape in ["thread", "loop"] {
            let (child, port) = try startNIOFloor(binary: binary, arguments: ["--saves", journals.appendingPathComponent("\(shape).journal").path,
                                                                              "--writer", shape], log: "save-floor-\(shape).log")
            floors.append(("NIOLineFloor --writer \(shape)", child, port))
        }
        say("NIOLineFloor --saves (SwiftNIO, one event loop; each update line's ID and version read, the line appended to a journal,"
            + " pwrite + fdatasync per group, the docserver's answer): `thread` hands each save to a writer thread as the docserver does,"
            + " `loop` writes and syncs on the event loop once per turn as Redis does")
        var micros: [String: [Double]] = [:]
        var rates: [String: [Double]] = [:]
        func note(_ name: String, _ rate: Double, _ cpu: CPUShare, _ line: String) {
            let perSave = cpu.server / rate * 1e6
            micros[name, default: []].append(perSave)
            rates[name, default: []].append(rate)
            say("    \(name): \(grouped(Int(rate.rounded()))) saves/s, \(line); \(fixed(perSave, 1)) µs of server CPU per save")
        }
        for round in 1...3 {
            say("round \(round) of 3, 50 connections each:")
            let redisStart = CPUShare.Start(serverPID: redis.durable.child.processIdentifier)
            let redisLoad = LoadGenerator(group: group, host: "127.0.0.1", port: redis.durable.port, warmup: options.warmup, duration: options.duration)
            let sets = try await redisLoad.run(connections: 50, workload: RedisSetWorkload.factory)
            let redisCPU = redisStart.share()
            guard sets.errors == 0, sets.answers > 0 else { throw BenchmarkError("Redis SET failed: \(sets.firstError ?? "no answers")") }
            note("Redis durable SET (our load generator)", sets.requestsPerSecond, redisCPU,
                 "p99 \(fixed(sets.p99, 3)) ms (\(redisCPU.describe(server: "redis-server", client: "load client")))")

            let versions = try session.versions(of: owned)
            let (saves, docserverCPU) = try await run(session: session, load: load, connections: 50,
                                                      workload: UpdateWorkload.factory(songs: owned, versions: versions))
            guard saves.errors == 0, saves.answers > 0 else { throw BenchmarkError("docserver saves failed: \(saves.firstError ?? "no answers")") }
            note("docserver save", saves.requestsPerSecond, docserverCPU,
                 "p99 \(fixed(saves.p99, 3)) ms (\(docserverCPU.describe(server: "docserver", client: "load client")))")

            for floor in floors {
                let start = CPUShare.Start(serverPID: floor.child.processIdentifier)
                let floorLoad = LoadGenerator(group: group, host: "127.0.0.1", port: floor.port, warmup: options.warmup, duration: options.duration)
                // The floor answers version + 1 of whatever version it is sent: any start does.
                let measured = try await floorLoad.run(connections: 50, workload: UpdateWorkload.factory(songs: owned, versions: [:]))
                let cpu = start.share()
                guard measured.errors == 0, measured.answers > 0 else {
                    throw BenchmarkError("\(floor.name) failed: \(measured.errors) errors, first: \(measured.firstError ?? "no answers")")
                }
                note(floor.name, measured.requestsPerSecond, cpu, "p99 \(fixed(measured.p99, 3)) ms (\(cpu.describe(server: "NIOLineFloor", client: "load client")))")
            }
        }
        say("server CPU per durable save, medians of 3 rounds:")
        func figure(_ name: String) -> String {
            "\(fixed(median(micros[name] ?? []), 1)) µs (\(grouped(Int(median(rates[name] ?? []).rounded()))) saves/s)"
        }
        let redisName = "Redis durable SET (our load generator)", docserverName = "docserver save"
        for name in [redisName, docserverName] + floors.map(\.name) { say("    \(name): \(figure(name))") }
        recordFigure("server CPU per durable save: docserver, SwiftNIO floors, Redis (`--saves --nio-floor`), 50 connections",
                     data: store.label,
                     result: "docserver \(figure(docserverName)); NIOLineFloor writer thread \(figure(floors[0].name)), on the event loop "
                        + "\(figure(floors[1].name)); Redis \(figure(redisName)); medians of 3 rounds, one load generator")
        say()
    }
}
