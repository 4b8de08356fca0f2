import BenchmarkSupport
import DocumentClient
import Foundation

/// What one timed span cost: wall-clock seconds, round trips (requests the store's client
/// sent), bytes of answers received, and the CPU time the benchmark (the client) and the
/// server used meanwhile.
struct Sample {
    var seconds: Double
    var requests: Int
    var bytes: Int
    var clientCPU: Double?
    var serverCPU: Double?
}

/// Measures spans on a store's client and the server's process.
struct Meter {
    let serverPID: Int32

    /// Runs `body` and measures it on `store`'s client.
    func measure(_ store: RemoteStore, _ body: () throws -> Void) rethrows -> Sample {
        let statistics = store.client.statistics
        let requests = statistics.requests, bytes = statistics.bytesReceived
        let client = ProcessCPU.thisProcessSeconds(), server = ProcessCPU.seconds(pid: serverPID)
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Sample(seconds: seconds(elapsed),
                      requests: statistics.requests - requests, bytes: statistics.bytesReceived - bytes,
                      clientCPU: ProcessCPU.thisProcessSeconds() - client, serverCPU: ProcessCPU.seconds(pid: serverPID) - server)
    }
}

/// The runs of one figure; the median run (by time) is the one printed.
struct Figure {
    let label: String
    let runs: [Sample]
    /// Objects the figure reads, for objects/s (nil: not a rate figure).
    var objects: Int?
    /// Seconds (false) or milliseconds (true).
    var inMilliseconds = false

    var median: Sample {
        let sorted = runs.sorted { $0.seconds < $1.seconds }
        return sorted[sorted.count / 2]
    }

    /// Round trips of the median run, or the range when the runs differ.
    var requestsText: String { spread(\.requests, grouped) }
    var bytesText: String { spread(\.bytes, bytesDescription) }

    private func spread(_ key: KeyPath<Sample, Int>, _ format: (Int) -> String) -> String {
        let values = runs.map { $0[keyPath: key] }
        guard let low = values.min(), let high = values.max(), low != high else { return format(median[keyPath: key]) }
        return "\(format(low))-\(format(high))"
    }

    func time(_ seconds: Double) -> String {
        inMilliseconds ? fixed(seconds * 1000, 2) + " ms" : fixed(seconds, 3) + " s"
    }

    /// Every run's wall-clock time, in the figure's unit.
    var runsText: String {
        runs.map { time($0.seconds).split(separator: " ").first.map(String.init) ?? "" }.joined(separator: " / ")
    }

    var rateText: String {
        guard let objects, median.seconds > 0 else { return "" }
        return grouped(Int((Double(objects) / median.seconds).rounded()))
    }
}

// MARK: - Formatting

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Bytes as B, kB or MB (decimal units).
func bytesDescription(_ bytes: Int) -> String {
    switch bytes {
    case ..<10_000: return "\(grouped(bytes)) B"
    case ..<1_000_000: return fixed(Double(bytes) / 1000, 1) + " kB"
    default: return fixed(Double(bytes) / 1_000_000, 2) + " MB"
    }
}

extension String {
    func padded(_ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: Swift.max(0, width - count))
        return right ? padding + self : self + padding
    }
}
