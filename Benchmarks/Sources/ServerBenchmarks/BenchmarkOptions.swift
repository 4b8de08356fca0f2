import BenchmarkSupport
import NIOCore

/// The command line: `ServerBenchmarks [--quick] [--docserver PATH]`.
struct BenchmarkOptions {
    var quick = false
    var docserver: String?

    /// Warm-up before each measured window, and the window.
    var warmup: TimeAmount { quick ? .milliseconds(500) : .seconds(1) }
    var duration: TimeAmount { quick ? .milliseconds(1500) : .seconds(4) }
    /// Rounds of the warm `get` with 50 connections, alternated with Redis.
    var rounds: Int { quick ? 1 : 3 }
    /// Request counts for redis-benchmark (it runs a fixed count, not a duration).
    var redisGetRequests: Int { quick ? 50_000 : 200_000 }
    var redisSequentialRequests: Int { quick ? 10_000 : 50_000 }
    var redisDurableRequests: Int { quick ? 5_000 : 20_000 }

    static let usage = "usage: swift run -c release --package-path Benchmarks ServerBenchmarks [--quick] [--docserver PATH]"

    init(arguments: [String]) throws {
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--docserver":
                guard let path = rest.popFirst() else { throw BenchmarkError("--docserver needs a path\n\(Self.usage)") }
                docserver = path
            case "-h", "--help": throw BenchmarkError(Self.usage)
            default: throw BenchmarkError("unknown argument \(argument)\n\(Self.usage)")
            }
        }
    }
}
