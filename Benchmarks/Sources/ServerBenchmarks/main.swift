import BenchmarkSupport
import Foundation

// Server benchmark: docserver against Redis on the same machine, in one run.
//
//   swift run -c release --package-path Benchmarks ServerBenchmarks [--quick] [--docserver PATH]
//   (on the shared 2-core machine: add --scratch-path Benchmarks/.build-bench after --package-path Benchmarks)
//
// 1. Writes two stores of the sample model (Artist, Album, Song, Tag) with GraphCore +
//    JSONAtomicStore: 100,000 and 10,000 objects, 89 % of them Songs.
// 2. Starts the release docserver (`--docserver PATH`, else $DOCSERVER_BINARY, else the newer of
//    <repo>/.build/release/docserver and <repo>/.build-bench/release/docserver; built with
//    `swift build -c release --scratch-path .build-bench --product docserver --enable-all-traits` if neither exists)
//    as `docserver serve --model <sample model> --store <file> --port 0`, reading its port from
//    its `listening on HOST:PORT` line, and two redis-servers (apt-get installs Redis if missing).
// 3. On the 100,000-object store: `get` of one random object by ID with 50 connections on a
//    fresh server (COLD: objects sent for the first time), then, after an untimed `get` of every
//    object, WARM with 1 connection and with 50; `fetch` of 100 Songs by a predicate with 1 and 50.
// 4. Durable saves (an `update` of one Song's `plays` with its version, each client its own
//    Song) with 1 client and 50, on the 100,000- and on the 10,000-object store (a server each).
// 5. Redis, measured by redis-benchmark right before the docserver figure it is compared with:
//    GET with 1 and 50 clients, SET with `appendfsync always` and 50 clients. The warm `get` with
//    50 connections runs in 3 rounds (--quick: 1) alternated with Redis GET (the shared machine
//    drifts); its ratio is the median of its rounds over the median of the Redis runs.
//    Each figure says ours / Redis. Then the targets, and whether each was met.
// 6. Live changes (`--live` runs only these, on the 10,000-object store): saves/s of 50 clients
//    without subscribers, with 100 (50 on `Tag`, 50 live queries on it) while a probe inserts
//    a Tag every 10 ms, and without again (the cost is judged against the mean of the two);
//    save -> notification latency of the probes at each subscriber, from the save sent and from
//    its answer (one thread polls the 100 sockets); resident memory with one subscriber that
//    never reads;
//    Redis pub/sub with 100 subscribers (a probe PUBLISHing every 10 ms while redis-benchmark
//    SETs with 50 clients), publish -> message latency measured the same way
//    (LiveChangesBenchmark.swift).
//
// 7. `--fetch-saving` runs only fetch of 100 Songs among 89,000 with 1 and 50 connections, each
//    alone and while 50 other clients save, in rounds; with `--variant`s, the servers compared
//    alternate in each round (A/B back to back) (ServerBenchmark+FetchWhileSaving.swift).
// 8. `--memory` runs only resident memory: at start, after each quarter of `--memory-saves`
//    (default 1,000,000) durable saves, and after a restart on the same store
//    (ServerBenchmark+MemoryAfterSaves.swift).
// 9. `--postgres` runs only docserver on PostgreSQL: `get` and durable saves through 1 and 2
//    servers on one database, beside pgbench on the same cluster (ServerBenchmark+Postgres.swift).
// 10. `--transports` runs only `get` with 50 connections over TCP, TLS and the WebSocket `/rpc`,
//    alternating over rounds, with the ratios to TCP (ServerBenchmark+Transports.swift).
// 11. `--postgres-cache` runs only servers over PostgreSQL with a bounded cache (`--cache-bytes`):
//    2,000,000 Songs (`--cache-songs N`), time to listen, `get` hot and uniform and an indexed
//    `fetch` beside pgbench, resident memory (ServerBenchmark+PostgresCache.swift).
//
// Every load run is closed-loop (each connection sends one request and waits for its answer,
// as redis-benchmark does), with requests encoded before the run: 50 connections driven by one
// SwiftNIO event-loop thread, 1 connection by blocking write + read on one thread (measured
// 35 % more requests/s than through an event loop, whose epoll_wait only adds to each request);
// 1 s warm-up, then 4 s measured (--quick: 0.5 s + 1.5 s). Every answer is checked (a result,
// with what the request asked for); a figure with failed answers says so.
// Each figure also says how the 2 cores were shared: CPU of the server, of the load client and
// of other processes (the machine is shared), and how often the server and client were preempted.

let options: BenchmarkOptions
do { options = try BenchmarkOptions(arguments: CommandLine.arguments) } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
ChildProcessReaper.installSignalHandlers()
let benchmark = try ServerBenchmark(options: options)
do {
    if options.indexes {
        try await benchmark.runIndexes()
    } else if options.postgres {
        try await benchmark.runPostgres()
    } else if options.postgresCache {
        try await benchmark.runPostgresCache()
    } else if options.fetchSaving {
        try await benchmark.runFetchWhileSaving()
    } else if options.metricsCost {
        try await benchmark.runMetricsCost()
    } else if options.transports {
        try await benchmark.runTransports()
    } else if options.memoryOnly {
        try await benchmark.runMemoryAfterSaves()
    } else {
        try await benchmark.run()
    }
    await benchmark.cleanUp()
} catch {
    await benchmark.cleanUp()
    say("ServerBenchmarks stopped: \(error)")
    exit(1)
}
