import Foundation

/// The Redis figures ours are compared with.
struct RedisFigures {
    let get50: RedisBaseline.Figure
    let get1: RedisBaseline.Figure
    /// SET with `appendonly yes`, `appendfsync always`, 50 clients: Redis's durable write.
    let durableSet: RedisBaseline.Figure
}

extension ServerBenchmark {
    func measureRedis() throws -> RedisFigures {
        let redis = try RedisBaseline.locate()
        say("Redis \(redis.version) (redis-benchmark, its own client, one thread; 3-byte value):")
        let get50: RedisBaseline.Figure, get1: RedisBaseline.Figure
        do {
            let (child, port) = try redis.start(options: ["--save", "", "--appendonly", "no"], directory: directory, name: "redis")
            defer { child.stop() }
            try redis.set(port: port, key: "key:__rand_int__", value: "xxx")
            get50 = try redis.benchmark(port: port, test: "get", clients: 50, requests: options.redisGetRequests)
            get1 = try redis.benchmark(port: port, test: "get", clients: 1, requests: options.redisSequentialRequests)
        }
        say("  GET, 50 clients (-c 50 -n \(grouped(options.redisGetRequests))): \(Self.describe(get50))")
        say("  GET, 1 client (-c 1 -n \(grouped(options.redisSequentialRequests))): \(Self.describe(get1))")
        let aof = directory.appendingPathComponent("redis-aof")
        try FileManager.default.createDirectory(at: aof, withIntermediateDirectories: true)
        let (child, port) = try redis.start(options: ["--save", "", "--appendonly", "yes", "--appendfsync", "always"], directory: aof, name: "redis-aof")
        defer { child.stop() }
        let durableSet = try redis.benchmark(port: port, test: "set", clients: 50, requests: options.redisDurableRequests)
        say("  SET with appendonly yes + appendfsync always (durable), 50 clients (-n \(grouped(options.redisDurableRequests))): \(Self.describe(durableSet))")
        say()
        return RedisFigures(get50: get50, get1: get1, durableSet: durableSet)
    }

    /// Redis GET with 50 clients once more, after docserver's runs: how much the machine's
    /// speed drifted during the run (other engineers share it).
    func measureRedisGetAgain(first: RedisFigures) throws {
        let redis = try RedisBaseline.locate()
        let (child, port) = try redis.start(options: ["--save", "", "--appendonly", "no"], directory: directory, name: "redis-again")
        defer { child.stop() }
        try redis.set(port: port, key: "key:__rand_int__", value: "xxx")
        let again = try redis.benchmark(port: port, test: "get", clients: 50, requests: options.redisGetRequests)
        var line = "Redis GET, 50 clients, again after docserver's runs: \(Self.describe(again))"
            + " (\(fixed(again.requestsPerSecond / first.get50.requestsPerSecond, 2)) x the first)"
        if let get = reports["get-50"] {
            line += "; docserver get with 50 connections = \(fixed(get.measurement.requestsPerSecond / again.requestsPerSecond, 3)) x this one"
        }
        say(line)
        say()
    }

    static func describe(_ figure: RedisBaseline.Figure) -> String {
        "\(grouped(Int(figure.requestsPerSecond.rounded()))) req/s, p50 \(fixed(figure.p50, 3)) ms, p99 \(fixed(figure.p99, 3)) ms"
    }
}
