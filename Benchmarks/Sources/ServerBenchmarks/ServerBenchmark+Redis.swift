import BenchmarkSupport
import Foundation

/// The two redis-servers the figures are compared with, kept running through the whole
/// run so that each Redis figure is measured right next to the docserver figure it is
/// compared with (the machine's speed drifts: other engineers' builds share it).
struct RedisServers {
    let tool: RedisBaseline
    /// `--save '' --appendonly no`, with the key redis-benchmark's GET reads.
    let plain: RedisBaseline.Server
    /// `--appendonly yes --appendfsync always`: Redis's durable write.
    let durable: RedisBaseline.Server

    /// The key redis-benchmark's GET test reads (without `-r` it sends the name as it is) and
    /// its 3-byte value, as redis-benchmark's SET test writes it.
    static let getKey = "key:__rand_int__"
    static let getValue = "xxx"

    func stop() {
        plain.child.stop()
        durable.child.stop()
    }
}

extension ServerBenchmark {
    func startRedis() throws -> RedisServers {
        let tool = try RedisBaseline.locate()
        let plain = try tool.start(options: ["--save", "", "--appendonly", "no"], directory: directory, name: "redis")
        let aof = directory.appendingPathComponent("redis-aof")
        try FileManager.default.createDirectory(at: aof, withIntermediateDirectories: true)
        let durable: RedisBaseline.Server
        do {
            durable = try tool.start(options: ["--save", "", "--appendonly", "yes", "--appendfsync", "always"], directory: aof, name: "redis-aof")
            try tool.set(on: plain, key: RedisServers.getKey, value: RedisServers.getValue)
        } catch {
            plain.child.stop()
            throw error
        }
        say("Redis \(tool.version), measured by redis-benchmark (its own C client, one thread; 3-byte values), right before each docserver figure;"
            + " GET with 50 connections also by our own SwiftNIO load generator (the docserver figures' client), so that both servers face the same client cost")
        say()
        return RedisServers(tool: tool, plain: plain, durable: durable)
    }

    /// Redis GET with `clients` clients; prints the figure.
    func redisGet(_ redis: RedisServers, clients: Int, note: String = "") throws -> RedisBaseline.Figure {
        let requests = clients == 1 ? options.redisSequentialRequests : options.redisGetRequests
        let figure = try redis.tool.benchmark(on: redis.plain, test: "get", clients: clients, requests: requests)
        say("Redis GET, \(clients == 1 ? "1 client" : "\(clients) clients")\(note) (redis-benchmark -t get -c \(clients) -n \(grouped(requests))):")
        say("    \(Self.describe(figure))")
        return figure
    }

    /// Redis GET with `clients` connections of the project's own load generator (the one the
    /// docserver figures use: one SwiftNIO event-loop thread, closed loop, the same warm-up and
    /// window), sending RESP `GET key:__rand_int__`; prints the figure. Beside ``redisGet(_:clients:note:)``
    /// it shows how much of a ratio is the client's: both servers then face the same client cost.
    func redisGetThroughLoadGenerator(_ redis: RedisServers, clients: Int, note: String = "") async throws -> RedisBaseline.Figure {
        let start = CPUShare.Start(serverPID: redis.plain.child.processIdentifier)
        let load = LoadGenerator(group: group, host: "127.0.0.1", port: redis.plain.port, warmup: options.warmup, duration: options.duration)
        let measurement = try await load.run(connections: clients, workload: RedisGetWorkload.factory(key: RedisServers.getKey, value: RedisServers.getValue))
        let cpu = start.share()
        if measurement.errors > 0 || measurement.answers == 0 {
            throw BenchmarkError("Redis GET through the load generator failed: \(measurement.errors) errors, first: \(measurement.firstError ?? "no answers")")
        }
        let figure = RedisBaseline.Figure(requestsPerSecond: measurement.requestsPerSecond, p50: measurement.p50, p99: measurement.p99, cpu: cpu)
        say("Redis GET, \(clients) connections of OUR load generator\(note) (RESP GET over SwiftNIO, as the docserver figures):")
        say("    \(Self.describe(figure, client: "load client"))")
        return figure
    }

    /// Redis GET with `clients` connections of our load generator while 50 other connections
    /// (on the second event loop, as the docserver's savers) SET keys of their own on the durable
    /// Redis (`appendfsync always`): the peer of `get` while 50 clients save, under the same kind
    /// of load. Both figures are printed; returns the GET figure and the SETs made meanwhile.
    func redisGetWhileSetting(_ redis: RedisServers, clients: Int) async throws -> (get: RedisBaseline.Figure, sets: Measurement) {
        try redis.tool.set(on: redis.durable, key: RedisServers.getKey, value: RedisServers.getValue)
        let setter = LoadGenerator(group: backgroundGroup, host: "127.0.0.1", port: redis.durable.port,
                                   warmup: .milliseconds(1), duration: options.warmup + options.duration + .milliseconds(500))
        let start = CPUShare.Start(serverPID: redis.durable.child.processIdentifier)
        async let setting = setter.run(connections: 50, workload: RedisSetWorkload.factory)
        let load = LoadGenerator(group: group, host: "127.0.0.1", port: redis.durable.port, warmup: options.warmup, duration: options.duration)
        let measurement = try await load.run(connections: clients, workload: RedisGetWorkload.factory(key: RedisServers.getKey, value: RedisServers.getValue))
        let cpu = start.share()
        let sets = try await setting
        if measurement.errors > 0 || measurement.answers == 0 || sets.errors > 0 || sets.answers == 0 {
            throw BenchmarkError("Redis GET while setting failed: \(measurement.errors) GET errors, \(sets.errors) SET errors, first: "
                                 + "\(measurement.firstError ?? sets.firstError ?? "no answers")")
        }
        let figure = RedisBaseline.Figure(requestsPerSecond: measurement.requestsPerSecond, p50: measurement.p50, p99: measurement.p99, cpu: cpu)
        say("Redis GET, \(clients) connections of OUR load generator, WHILE 50 other connections SET durably (appendonly yes, appendfsync always;"
            + " both loads through our load generator, as the docserver's get and saves):")
        say("    \(Self.describe(figure, client: "load clients"))")
        say("    meanwhile: \(grouped(Int(sets.requestsPerSecond.rounded()))) durable SETs/s by the 50 setting connections,"
            + " p50 \(fixed(sets.p50, 3)) ms, p99 \(fixed(sets.p99, 3)) ms")
        return (figure, sets)
    }

    /// Redis SET with `appendfsync always` and 50 clients; prints the figure.
    func redisDurableSet(_ redis: RedisServers) throws -> RedisBaseline.Figure {
        let figure = try redis.tool.benchmark(on: redis.durable, test: "set", clients: 50, requests: options.redisDurableRequests)
        say("Redis durable SET (appendonly yes, appendfsync always), 50 clients (redis-benchmark -t set -c 50 -n \(grouped(options.redisDurableRequests))):")
        say("    \(Self.describe(figure))")
        return figure
    }

    static func describe(_ figure: RedisBaseline.Figure, client: String = "redis-benchmark") -> String {
        "\(grouped(Int(figure.requestsPerSecond.rounded()))) req/s, p50 \(fixed(figure.p50, 3)) ms, p99 \(fixed(figure.p99, 3)) ms"
            + (figure.cpu.map { " (\($0.describe(server: "redis-server", client: client)))" } ?? "")
    }
}
