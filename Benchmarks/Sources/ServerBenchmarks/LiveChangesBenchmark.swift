import BenchmarkSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Live changes (issue 16): 100 subscribers while 50 clients save, against Redis pub/sub with
/// 100 subscribers in the same run.
///
/// - Saves/s of 50 clients (each updating its own Song) without subscribers, then with 100
///   subscribers open: 50 watching `Tag`, 50 a live query on `Tag` (`label BEGINSWITH "probe"`),
///   in three rounds, each between two runs without subscribers.
/// - Meanwhile a probe client inserts a Tag labelled `probe-<k>` every 10 ms; latency is from
///   the probe's `save` sent to its notification read by each of the 100 subscribers (one
///   listener thread polls them all).
/// - Resident memory of the server with one subscriber (of everything, with values) that never
///   reads, before and after 50 clients save for the window: bounded by its buffer, after which
///   it gets `resync`.
/// - Redis: 100 SUBSCRIBE connections, a probe PUBLISHing `probe-<k>` every 10 ms while
///   redis-benchmark runs SET with 50 clients; publish→receive latency measured the same way.
extension ServerBenchmark {
    nonisolated static let liveSubscribers = 100
    /// Rounds of saves with the subscribers, each between two without them.
    nonisolated static let liveRounds = 3
    nonisolated static let probeInterval: UInt32 = 10_000  // microseconds

    func measureLiveChanges(on store: BenchmarkStore, redis: RedisServers) async throws {
        say("Live changes: \(Self.liveSubscribers) subscribers while 50 clients save, beside Redis pub/sub with \(Self.liveSubscribers) subscribers")
        try await withServer(on: store) { session, load in
            let songs = try session.ids(of: "Song", limit: 100_000)
            let stride = max(songs.count / 50, 1)
            let owned = (0..<50).map { songs[($0 * stride) % songs.count] }
            // Rounds of saves with the subscribers open between runs without them: the machine
            // drifts, so each round's cost is judged against the runs just before and after it.
            try await liveSaves("live-save-0-0", "no subscribers", store: store, session: session, load: load, owned: owned)
            var latencies: [LiveLatency] = [], afterAnswers: [LiveLatency] = []
            for round in 1...Self.liveRounds {
                var sockets: [Int32] = []
                for index in 0..<Self.liveSubscribers {
                    let socket = try connectSocket(host: session.server.host, port: session.server.port)
                    let params = index % 2 == 0 ? #"{"entity":"Tag"}"# : #"{"entity":"Tag","predicate":"label BEGINSWITH \"probe\""}"#
                    try writeAll(socket, Array(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":\#(params)}"#.utf8) + [0x0A])
                    try readUntil(socket, contains: #""subscription":1"#)
                    sockets.append(socket)
                }
                let listener = ProbeListener(sockets: sockets)
                listener.start()
                let probe = Probe { k in
                    Array(#"{"jsonrpc":"2.0","id":\#(k),"method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"probe-\#(k)"}}]}}"#.utf8) + [0x0A]
                }
                try probe.start(host: session.server.host, port: session.server.port)
                try await liveSaves("live-save-100-\(round)", "\(Self.liveSubscribers) subscribers open and a probe saving a Tag every 10 ms (round \(round))",
                                    store: store, session: session, load: load, owned: owned)
                let probes = probe.stop()
                usleep(200_000)
                let arrivals = listener.stop()  // and closes the subscribers' connections
                latencies.append(Self.latencies(sent: probes.sent, arrivals: arrivals, expected: Self.liveSubscribers))
                afterAnswers.append(Self.latencies(sent: probes.answered, arrivals: arrivals, expected: Self.liveSubscribers))
                try await liveSaves("live-save-0-\(round)", "no subscribers (after round \(round))", store: store, session: session, load: load, owned: owned)
            }
            let latency = LiveLatency(pooling: latencies)
            liveLatency = latency
            say("save -> notification latency (save sent to notification read), \(Self.liveSubscribers) subscribers (50 entity, 50 live query),"
                + " while 50 clients save [\(store.label)], \(Self.liveRounds) rounds pooled:")
            say("    \(latency.describe)")
            let afterAnswer = LiveLatency(pooling: afterAnswers)
            liveLatencyAfterAnswer = afterAnswer
            say("  of which after the save's answer (answer read to notification read; the save's own durable commit excluded):")
            say("    \(afterAnswer.describe)")

            // One subscriber that never reads.
            let silent = try connectSocket(host: session.server.host, port: session.server.port)
            try writeAll(silent, Array(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{}}"#.utf8) + [0x0A])
            try readUntil(silent, contains: #""subscription":1"#)
            var buffer: Int32 = 4096
            setsockopt(silent, SOL_SOCKET, SO_RCVBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
            let before = ProcessCPU.residentBytes(pid: session.server.processIdentifier)
            try await liveSaves("live-save-silent", "1 subscriber (of everything) that never reads", store: store, session: session, load: load,
                                owned: owned)
            let after = ProcessCPU.residentBytes(pid: session.server.processIdentifier)
            silentMemory = (before, after)
            say("server resident memory with 1 subscriber that never reads: \(megabytes(before)) before the saves, \(megabytes(after)) after"
                + " (its buffer: 4 MiB, then resync)")
            close(silent)
        }
        try measureRedisPubSub(redis)
        say()
    }

    /// One run of the live benchmark's saves (`key`, described with `label`): 50 clients, each
    /// updating its own Song of `owned`.
    private func liveSaves(_ key: String, _ label: String, store: BenchmarkStore, session: ServerSession, load: LoadGenerator,
                           owned: [String]) async throws {
        try await measure(key, "durable save (update of one Song's plays; each client its own Song), 50 connections, \(label)",
                          store: store, session: session, load: load, connections: 50, redis: nil,
                          workload: UpdateWorkload.factory(songs: owned, versions: try session.versions(of: owned)))
    }

    /// Redis pub/sub: 100 subscribers, a probe publishing every 10 ms while redis-benchmark SETs with 50 clients.
    private func measureRedisPubSub(_ redis: RedisServers) throws {
        var sockets: [Int32] = []
        for _ in 0..<Self.liveSubscribers {
            let socket = try connectSocket(host: "127.0.0.1", port: redis.plain.port)
            try writeAll(socket, Array("*2\r\n$9\r\nSUBSCRIBE\r\n$5\r\nbench\r\n".utf8))
            try readUntil(socket, contains: "subscribe")
            sockets.append(socket)
        }
        let listener = ProbeListener(sockets: sockets)
        listener.start()
        let probe = Probe { k in
            let payload = "probe-\(k)"
            return Array("*3\r\n$7\r\nPUBLISH\r\n$5\r\nbench\r\n$\(payload.utf8.count)\r\n\(payload)\r\n".utf8)
        }
        try probe.start(host: "127.0.0.1", port: redis.plain.port)
        let load = try redis.tool.benchmark(on: redis.plain, test: "set", clients: 50, requests: options.redisGetRequests)
        let sent = probe.stop().sent
        usleep(200_000)
        let latency = Self.latencies(sent: sent, arrivals: listener.stop(), expected: Self.liveSubscribers)
        redisPubSubLatency = latency
        say("Redis \(redis.tool.version) PUBLISH -> message latency, \(Self.liveSubscribers) subscribers, while redis-benchmark SETs with 50 clients"
            + " (\(grouped(Int(load.requestsPerSecond.rounded()))) req/s):")
        say("    \(latency.describe)")
    }

    static func latencies(sent: [Int: UInt64], arrivals: [Int: [UInt64]], expected: Int) -> LiveLatency {
        var samples: [UInt64] = []
        var missing = 0
        for (k, start) in sent {
            let got = arrivals[k] ?? []
            missing += max(0, expected - got.count)
            samples += got.map { $0 > start ? $0 - start : 0 }
        }
        samples.sort()
        return LiveLatency(probes: sent.count, samples: samples, missing: missing)
    }
}

/// Probe → arrival latencies of one live-changes run (or of several, pooled).
struct LiveLatency {
    let probes: Int
    let samples: [UInt64]
    let missing: Int

    init(probes: Int, samples: [UInt64], missing: Int) {
        self.probes = probes
        self.samples = samples
        self.missing = missing
    }

    /// The deliveries of every run of `runs` together.
    init(pooling runs: [LiveLatency]) {
        self.init(probes: runs.reduce(0) { $0 + $1.probes }, samples: runs.flatMap(\.samples).sorted(),
                  missing: runs.reduce(0) { $0 + $1.missing })
    }

    func percentile(_ fraction: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let rank = Int((fraction * Double(samples.count)).rounded(.up)) - 1
        return Double(samples[min(max(rank, 0), samples.count - 1)]) / 1e6
    }

    var describe: String {
        "p50 \(fixed(percentile(0.5), 3)) ms, p99 \(fixed(percentile(0.99), 3)) ms, max \(fixed(percentile(1), 3)) ms;"
            + " \(grouped(samples.count)) deliveries of \(probes) probes\(missing > 0 ? ", \(missing) MISSING" : ", none missing")"
    }
}

/// Sends one probe every 10 ms on its own thread, noting when each was sent, and reads (and
/// drops) its answer before the next.
final class Probe: @unchecked Sendable {
    // @unchecked: `sent` and `stopped` only with `lock` held.
    private let message: @Sendable (Int) -> [UInt8]
    private let lock = NSLock()
    private var sent: [Int: UInt64] = [:]
    private var answered: [Int: UInt64] = [:]
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)

    init(message: @escaping @Sendable (Int) -> [UInt8]) {
        self.message = message
    }

    func start(host: String, port: Int) throws {
        let socket = try connectSocket(host: host, port: port)
        let thread = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            var k = 1
            while true {
                lock.lock()
                let done = stopped
                lock.unlock()
                if done { break }
                let bytes = message(k)
                let start = MonotonicClock.nanoseconds()
                lock.lock()
                sent[k] = start
                lock.unlock()
                if (try? writeAll(socket, bytes)) == nil { break }
                // One answer per probe (a save's, or PUBLISH's count): read it before the next.
                if chunk.withUnsafeMutableBytes({ read(socket, $0.baseAddress, $0.count) }) <= 0 { break }
                let end = MonotonicClock.nanoseconds()
                lock.lock()
                answered[k] = end
                lock.unlock()
                k += 1
                usleep(ServerBenchmark.probeInterval)
            }
            close(socket)
            finished.signal()
        }
        thread.start()
    }

    /// Stops; returns when each probe was sent and when its answer came.
    func stop() -> (sent: [Int: UInt64], answered: [Int: UInt64]) {
        lock.lock()
        stopped = true
        lock.unlock()
        finished.wait()
        lock.lock()
        defer { lock.unlock() }
        return (sent, answered)
    }
}
