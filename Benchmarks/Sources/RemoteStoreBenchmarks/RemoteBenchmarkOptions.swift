import BenchmarkSupport
import Foundation

/// The command line: `RemoteStoreBenchmarks [--objects N] [--runs R] [--only LETTERS] [--docserver PATH]`.
struct RemoteBenchmarkOptions {
    /// Songs inserted (and fetched by every figure).
    var objects = 10_000
    /// Runs of each timed figure; the median is printed.
    var runs = 3
    var docserver: String?
    /// The figures to measure, by letter (`--only bc`: b and c); all when nil. For profiling.
    var only: Set<Character>?

    func measures(_ figure: Character) -> Bool { only?.contains(figure) ?? true }

    static let usage = "usage: swift run -c release --package-path Benchmarks RemoteStoreBenchmarks [--objects N] [--runs R] [--only LETTERS] [--docserver PATH]"

    init(arguments: [String]) throws {
        var rest = arguments.dropFirst()
        func count(_ name: String) throws -> Int {
            guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
                throw BenchmarkError("\(name) needs a whole number greater than 0\n\(Self.usage)")
            }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--objects": objects = try count(argument)
            case "--runs": runs = try count(argument)
            case "--only":
                guard let letters = rest.popFirst(), !letters.isEmpty, letters.allSatisfy({ "abcdef".contains($0) }) else {
                    throw BenchmarkError("--only needs figure letters from abcdef\n\(Self.usage)")
                }
                only = Set(letters)
            case "--docserver":
                guard let path = rest.popFirst() else { throw BenchmarkError("--docserver needs a path\n\(Self.usage)") }
                docserver = path
            case "-h", "--help": throw BenchmarkError(Self.usage)
            default: throw BenchmarkError("unknown argument \(argument)\n\(Self.usage)")
            }
        }
    }
}
