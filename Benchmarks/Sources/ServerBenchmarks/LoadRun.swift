import NIOCore

/// The state one load run shares among its connections: the phase (warm-up, measuring,
/// stopping) and the tally of answers. Every connection of a run lives on one event loop.
final class LoadRun: @unchecked Sendable {
    // @unchecked Sendable: all mutable state is only touched on `eventLoop` (the handlers
    // run there, `start` and the scheduled phase changes are submitted to it); each entry
    // point asserts it.
    let eventLoop: EventLoop
    private let connections: Int
    private(set) var measuring = false
    private(set) var stopping = false
    private var measureStart: UInt64 = 0
    private var measureEnd: UInt64 = 0
    private var answers = 0
    private var errors = 0
    private var warmupErrors = 0
    private var firstError: String?
    private var latencies: [UInt64] = []
    private var finished = 0
    private let done: EventLoopPromise<Measurement>

    init(eventLoop: EventLoop, connections: Int) {
        self.eventLoop = eventLoop
        self.connections = connections
        self.done = eventLoop.makePromise()
        latencies.reserveCapacity(1 << 20)
    }

    /// The measurement, once every connection has had its last answer after the window.
    var measurement: EventLoopFuture<Measurement> { done.futureResult }

    /// Sends each connection its first request, then ends the warm-up after `warmup` and
    /// the window `duration` later.
    func start(channels: [Channel], warmup: TimeAmount, duration: TimeAmount) {
        eventLoop.execute {
            for channel in channels { channel.pipeline.fireUserInboundEventTriggered(LoadHandler.Start()) }
            self.eventLoop.scheduleTask(in: warmup) {
                self.measuring = true
                self.measureStart = MonotonicClock.nanoseconds()
            }
            self.eventLoop.scheduleTask(in: warmup + duration) { self.stop() }
            // A server that stops answering must not hang the benchmark.
            self.eventLoop.scheduleTask(in: warmup + duration + .seconds(30)) {
                if self.finished < self.connections {
                    self.fail("\(self.connections - self.finished) connection(s) had no answer 30 s after the window closed")
                    self.finish()
                }
            }
        }
    }

    /// Counts one answer; `line` is only called for a failing answer.
    func record(latency: UInt64, ok: Bool, line: () -> String) {
        eventLoop.assertInEventLoop()
        if measuring {
            answers += 1
            latencies.append(latency)
            if !ok { errors += 1 }
        } else if !ok {
            warmupErrors += 1
        }
        if !ok, firstError == nil { firstError = line() }
    }

    /// Notes a failure that is not an answer (a closed connection, a socket error).
    func fail(_ message: String) {
        eventLoop.assertInEventLoop()
        if measuring { errors += 1 } else { warmupErrors += 1 }
        if firstError == nil { firstError = message }
    }

    /// A connection will send nothing more (it had its answer after the window, or failed).
    func connectionFinished() {
        eventLoop.assertInEventLoop()
        finished += 1
        if finished == connections { finish() }
    }

    private func stop() {
        if measuring { measureEnd = MonotonicClock.nanoseconds() }
        measuring = false
        stopping = true
    }

    private func finish() {
        if !stopping { stop() }
        latencies.sort()
        let seconds = measureEnd > measureStart ? Double(measureEnd - measureStart) / 1e9 : 0
        done.succeed(Measurement(answers: answers, errors: errors, warmupErrors: warmupErrors, firstError: firstError,
                                 seconds: seconds, latencies: latencies))
    }
}
