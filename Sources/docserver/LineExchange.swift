import Foundation
import NIOCore
import NIOPosix

/// Request lines to a server and its answer lines, for the commands that talk to a running
/// server (`ping`, `backup`): one connection, the lines written at once, the answers read until
/// `answers` lines came or an error answer did, within `timeout` seconds (connecting included).
enum LineExchange {
    /// Sends `request` (newline-terminated lines) and returns the answer lines.
    ///
    /// - Throws: ``PingFailure`` when the server closes the connection early or does not answer in time;
    ///   NIO's error when it cannot be reached.
    static func send(_ request: String, host: String, port: Int, answers: Int, timeout: Double) async throws -> [String] {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(max(0.001, min(timeout, 3600)) * 1000)))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return try await withThrowingTaskGroup(of: [String].self) { group in
            group.addTask {
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(ByteBuffer(string: request))
                    var received = ""
                    for try await chunk in inbound {
                        received += String(buffer: chunk)
                        let lines = received.split(separator: "\n", omittingEmptySubsequences: true)
                        if lines.count >= answers || (received.hasSuffix("\n") && lines.contains { $0.contains(#""error""#) }) {
                            return lines.map(String.init)
                        }
                    }
                    throw PingFailure("the server closed the connection" + (received.isEmpty ? "" : " after: \(received.prefix(300))"))
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(timeout))
                throw PingFailure("no answer within \(timeout) s")
            }
            defer { group.cancelAll() }
            guard let answer = try await group.next() else { throw PingFailure("no answer") }
            return answer
        }
    }
}
