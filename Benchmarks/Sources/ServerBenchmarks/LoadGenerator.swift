import NIOCore
import NIOPosix

/// Runs closed-loop load against a server: `connections` connections, each with one request
/// in flight, all driven by one event-loop thread (the machine has 2 cores, shared with the
/// server; redis-benchmark also drives its clients from one thread).
struct LoadGenerator {
    let group: MultiThreadedEventLoopGroup
    let host: String
    let port: Int
    /// Time before the window during which answers are not counted.
    let warmup: TimeAmount
    /// The measurement window.
    let duration: TimeAmount

    func run(connections: Int, workload: @escaping WorkloadFactory) async throws -> Measurement {
        let eventLoop = group.next()
        let run = LoadRun(eventLoop: eventLoop, connections: connections)
        var channels: [Channel] = []
        do {
            for connection in 0..<connections {
                let bootstrap = ClientBootstrap(group: eventLoop)
                    .channelOption(.socketOption(.tcp_nodelay), value: 1)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(LoadHandler(run: run, workload: workload(connection)))
                        }
                    }
                channels.append(try await bootstrap.connect(host: host, port: port).get())
            }
        } catch {
            for channel in channels { try? await channel.close() }
            throw error
        }
        run.start(channels: channels, warmup: warmup, duration: duration)
        let measurement = try await run.measurement.get()
        for channel in channels { try? await channel.close() }
        return measurement
    }
}
