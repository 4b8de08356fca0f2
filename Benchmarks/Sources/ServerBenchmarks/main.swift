import Foundation

// Server benchmark: docserver against Redis on the same machine, in one run.
//
//   swift run -c release --package-path Benchmarks --scratch-path Benchmarks/.build-bench ServerBenchmarks [--quick] [--docserver PATH]
//
// 1. Writes two stores of the sample model (Artist, Album, Song, Tag) with GraphCore +
//    JSONAtomicStore: 100,000 and 10,000 objects, most of them Songs.
// 2. Measures Redis (redis-server + redis-benchmark, installed with apt-get if missing): GET
//    with 50 clients and with 1; SET with 50 clients under `appendonly yes, appendfsync always`.
// 3. Starts the release docserver (`--docserver PATH`, else $DOCSERVER_BINARY, else
//    <repo>/.build/release/docserver or <repo>/.build-bench/release/docserver, built if missing)
//    with `serve --model <sample model> --store <file> --port 0`, and measures on the
//    100,000-object store: `get` of one random object by ID with 1 connection and with 50;
//    `fetch` of 100 Songs by a predicate with 1 and 50; durable saves (an `update` of one
//    Song's `plays`, each client its own Song) with 1 client and 50; then restarts it on the
//    10,000-object store for the same saves.
// 4. Prints each figure with the data it ran on, its ratio to Redis, and the targets.
//
// Every load run is closed-loop (each connection sends one request and waits for its answer,
// as redis-benchmark does), driven by one SwiftNIO event-loop thread, with requests encoded
// before the run; 1 s warm-up, then 4 s measured (--quick: 0.5 s + 1.5 s). Every answer is
// checked (a result, with what the request asked for); a figure with failed answers says so.

let options: BenchmarkOptions
do { options = try BenchmarkOptions(arguments: CommandLine.arguments) } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
let benchmark = try ServerBenchmark(options: options)
do {
    try await benchmark.run()
    await benchmark.cleanUp()
} catch {
    await benchmark.cleanUp()
    say("ServerBenchmarks stopped: \(error)")
    exit(1)
}
