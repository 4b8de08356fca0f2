import BenchmarkSupport
import NIOCore

/// The command line: `ServerBenchmarks [--quick] [--docserver PATH]`.
struct BenchmarkOptions {
    var quick = false
    /// Only the live-changes figures (`--live`), on the smallest store.
    var liveOnly = false
    /// Only the `get` figures (`--get`): the warm rounds against Redis and `get` while 50 clients
    /// save, on the 100,000-object store; for A/B comparisons of the get path.
    var getOnly = false
    /// Only the durable saves (`--saves`), with 1 and 50 clients, on the `--sizes` stores (default
    /// 100,000 and 1,000,000), each figure with the server's CPU per save; for A/B runs of two binaries.
    var savesOnly = false
    var docserver: String?
    /// Store sizes the saves are measured on (the reads run on 100,000, the memory on the smallest).
    var saveSizes = [10_000, 100_000, 1_000_000]
    /// Durable saves before resident memory is compared with a fresh start.
    var memorySaves: Int?
    /// `--indexes`: the fetch-index benchmark (ServerBenchmark+Indexes.swift) instead of the rest.
    var indexes = false
    /// `--postgres`: docserver on PostgreSQL beside pgbench (ServerBenchmark+Postgres.swift) instead of the rest.
    var postgres = false
    /// `--postgres-cache`: servers over PostgreSQL with a bounded cache (ServerBenchmark+PostgresCache.swift).
    var postgresCache = false
    /// `--cache-songs N`: the Songs of the `--postgres-cache` database.
    var cacheSongs = 2_000_000
    /// Songs in the store of the fetch-index benchmark.
    var indexSongs = 1_000_000
    /// `--fetch-saving`: fetch p50/p99 with and without concurrent saves (ServerBenchmark+FetchWhileSaving.swift).
    var fetchSaving = false
    /// Rounds of the `--fetch-saving` figures (each variant once per round).
    var fetchRounds: Int?
    /// `--variant "[BINARY] [serve options]"`, repeatable: the servers `--fetch-saving` compares.
    var variants: [String] = []
    /// With `--get` or `--saves`: the `NIOLineFloor` binary to measure beside the docserver and Redis.
    var nioFloor: String?
    /// `--memory`: resident memory over many saves and after a restart (ServerBenchmark+MemoryAfterSaves.swift).
    var memoryOnly = false
    /// Objects in the store of `--memory`.
    var memoryObjects = 10_000
    /// `--metrics-cost`: requests with metrics on and off (OperationsMetricsCost.swift); `--metrics-rounds N`.
    var metricsCost = false
    var metricsRounds: Int?
    /// `--transports`: `get` over TCP, TLS and the WebSocket `/rpc` (ServerBenchmark+Transports.swift); `--transport-rounds N`.
    var transports = false
    var transportRounds: Int?

    /// Warm-up before each measured window, and the window.
    var warmup: TimeAmount { quick ? .milliseconds(500) : .seconds(1) }
    var duration: TimeAmount { quick ? .milliseconds(1500) : .seconds(4) }
    /// Rounds of the warm `get` with 50 connections, alternated with Redis.
    var rounds: Int { quick ? 1 : 3 }
    /// Request counts for redis-benchmark (it runs a fixed count, not a duration).
    var redisGetRequests: Int { quick ? 50_000 : 200_000 }
    var redisSequentialRequests: Int { quick ? 10_000 : 50_000 }
    var redisDurableRequests: Int { quick ? 5_000 : 20_000 }
    /// Saves before the memory figure, unless `--memory-saves` says.
    var memorySavesToMake: Int { memorySaves ?? (quick ? 10_000 : 100_000) }

    static let usage = "usage: swift run -c release --package-path Benchmarks ServerBenchmarks [--quick] [--docserver PATH]"
        + " [--sizes 10000,100000,1000000] [--memory-saves N] [--live] [--get [--nio-floor PATH]] [--saves [--nio-floor PATH]] [--indexes [--index-songs N]] [--postgres] [--postgres-cache [--cache-songs N]]"
        + " [--fetch-saving [--fetch-rounds N] [--variant \"[BINARY] [serve options]\"]...] [--memory [--memory-saves N] [--memory-objects N]]"
        + " [--metrics-cost [--metrics-rounds N]] [--transports [--transport-rounds N]]"

    init(arguments: [String]) throws {
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--live": liveOnly = true
            case "--get": getOnly = true; saveSizes = [100_000]
            case "--saves":
                savesOnly = true
                if saveSizes == [10_000, 100_000, 1_000_000] { saveSizes = [100_000, 1_000_000] }  // unless --sizes said
            case "--nio-floor":
                guard let path = rest.popFirst() else { throw BenchmarkError("--nio-floor needs the path of NIOLineFloor\n\(Self.usage)") }
                nioFloor = path
            case "--docserver":
                guard let path = rest.popFirst() else { throw BenchmarkError("--docserver needs a path\n\(Self.usage)") }
                docserver = path
            case "--sizes":
                let sizes = rest.popFirst()?.split(separator: ",").compactMap { Int($0) } ?? []
                guard !sizes.isEmpty, sizes.allSatisfy({ $0 >= 1_000 }), sizes.contains(100_000) else {
                    throw BenchmarkError("--sizes needs store sizes of at least 1000 objects, 100000 among them (the reads run on it)\n\(Self.usage)")
                }
                saveSizes = sizes
            case "--memory-saves":
                guard let count = rest.popFirst().flatMap(Int.init), count > 0 else { throw BenchmarkError("--memory-saves needs a count\n\(Self.usage)") }
                memorySaves = count
            case "--indexes": indexes = true
            case "--postgres": postgres = true
            case "--postgres-cache": postgresCache = true
            case "--cache-songs":
                guard let count = rest.popFirst().flatMap(Int.init), count >= 10_000 else { throw BenchmarkError("--cache-songs needs a count of at least 10000\n\(Self.usage)") }
                cacheSongs = count
            case "--index-songs":
                guard let count = rest.popFirst().flatMap(Int.init), count >= 1_000 else { throw BenchmarkError("--index-songs needs a count of at least 1000\n\(Self.usage)") }
                indexSongs = count
            case "--fetch-saving": fetchSaving = true
            case "--fetch-rounds":
                guard let count = rest.popFirst().flatMap(Int.init), count > 0 else { throw BenchmarkError("--fetch-rounds needs a count\n\(Self.usage)") }
                fetchRounds = count
            case "--variant":
                guard let variant = rest.popFirst() else { throw BenchmarkError("--variant needs a server (binary and/or serve options)\n\(Self.usage)") }
                variants.append(variant)
            case "--memory": memoryOnly = true
            case "--memory-objects":
                guard let count = rest.popFirst().flatMap(Int.init), count >= 1_000 else { throw BenchmarkError("--memory-objects needs a count of at least 1000\n\(Self.usage)") }
                memoryObjects = count
            case "--metrics-cost": metricsCost = true
            case "--metrics-rounds":
                guard let count = rest.popFirst().flatMap(Int.init), count > 0 else { throw BenchmarkError("--metrics-rounds needs a count\n\(Self.usage)") }
                metricsRounds = count
            case "--transports": transports = true
            case "--transport-rounds":
                guard let count = rest.popFirst().flatMap(Int.init), count > 0 else { throw BenchmarkError("--transport-rounds needs a count\n\(Self.usage)") }
                transportRounds = count
            case "-h", "--help": throw BenchmarkError(Self.usage)
            default: throw BenchmarkError("unknown argument \(argument)\n\(Self.usage)")
            }
        }
    }
}
