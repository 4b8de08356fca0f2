import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// One connection driven by plain blocking `write` and `read` on a thread of its own: for the
/// sequential figures, where an event loop only adds `epoll_wait` calls to each request.
struct BlockingLoad {
    let host: String
    let port: Int
    let warmup: TimeAmount
    let duration: TimeAmount

    func run(workload factory: @escaping WorkloadFactory) async throws -> Measurement {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try self.runBlocking(workload: factory(0)) })
            }
            thread.start()
        }
    }

    private func runBlocking(workload: any ConnectionWorkload) throws -> Measurement {
        let client = try LineClient(host: host, port: port)
        let preemptionsBefore = Self.threadPreemptions()
        let start = MonotonicClock.nanoseconds()
        let measureStart = start + UInt64(warmup.nanoseconds)
        let measureEnd = measureStart + UInt64(duration.nanoseconds)
        var latencies: [UInt64] = []
        latencies.reserveCapacity(1 << 20)
        var answers = 0, errors = 0, warmupErrors = 0
        var firstError: String?
        while true {
            var request = workload.nextRequest()
            let bytes = request.readBytes(length: request.readableBytes) ?? []
            let sent = MonotonicClock.nanoseconds()
            let line = try client.exchange(bytes)
            let now = MonotonicClock.nanoseconds()
            let ok = line.withUnsafeBytes { workload.check($0) }
            if now >= measureEnd { break }
            if sent >= measureStart {
                answers += 1
                latencies.append(now - sent)
                if !ok { errors += 1 }
            } else if !ok {
                warmupErrors += 1
            }
            if !ok, firstError == nil { firstError = String(decoding: line.prefix(300), as: UTF8.self) }
        }
        latencies.sort()
        return Measurement(answers: answers, errors: errors, warmupErrors: warmupErrors, firstError: firstError,
                           seconds: Double(measureEnd - measureStart) / 1e9, latencies: latencies,
                           endedThreadPreemptions: Self.threadPreemptions() - preemptionsBefore)
    }

    /// Involuntary context switches of the calling thread so far.
    private static func threadPreemptions() -> Int {
        var usage = rusage()
        let rusageThread: Int32 = 1  // RUSAGE_THREAD on Linux; Glibc does not import it (it needs _GNU_SOURCE)
        guard getrusage(rusageThread, &usage) == 0 else { return 0 }
        return usage.ru_nivcsw
    }
}
