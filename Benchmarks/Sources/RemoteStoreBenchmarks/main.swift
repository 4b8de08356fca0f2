import BenchmarkSupport
import Foundation

// RemoteStore benchmark: GraphCore contexts on a docserver through DocumentClient's RemoteStore.
//
//   swift run -c release --package-path Benchmarks RemoteStoreBenchmarks [--objects N] [--runs R] [--docserver PATH]
//
// 1. Starts the release docserver (`--docserver PATH`, else $DOCSERVER_BINARY, else the newest
//    of <repo>/.build/release/docserver, <repo>/.build-bench/release/docserver and
//    <repo>/Benchmarks/.build/release/docserver; built with
//    `swift build -c release --package-path Benchmarks --product docserver` if none exists) as
//    `docserver serve --model Sources/docserver/Resources/sample.model.json --store <new file> --port 0`.
// 2. Inserts N Songs (default 10,000) in Albums and Artists through a RemoteStore context
//    (coordinator on the same model file), in saves of 2,500 Songs.
// 3. Each figure, R times (default 3) on a fresh coordinator + RemoteStore + context, the
//    median printed: a) fetch all Songs with values and read each title; b), c), d) fetch
//    them as faults and read each title with prefetch 100, 1,000 and 1 (no batching);
//    e) count(for:), and a sorted fetch with fetchLimit 20; f) after a first load, refresh
//    every Song (mergeChanges: false) and read its title again: the bytes received against
//    the first load's.

let options: RemoteBenchmarkOptions
do { options = try RemoteBenchmarkOptions(arguments: CommandLine.arguments) } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
let benchmark = try RemoteStoreBenchmark(options: options)
ChildProcessReaper.removeOnStop(benchmark.directory.path)
ChildProcessReaper.installSignalHandlers()
do {
    try benchmark.run()
    benchmark.cleanUp()
} catch {
    benchmark.cleanUp()
    say("RemoteStoreBenchmarks stopped: \(error)")
    exit(1)
}
