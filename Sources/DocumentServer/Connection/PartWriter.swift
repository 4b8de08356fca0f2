import DocumentProtocol
import JSONCore
import NIOConcurrencyHelpers
import NIOCore

/// Writes the parts of a streamed answer (``AnswerParts``) into its connection, a line each,
/// from whatever thread makes them. One part at a time waits for the socket: the next is not
/// written before the one before it was taken by the kernel, so that a client that reads slowly
/// slows the stream (and, over PostgreSQL, the database's rows) instead of filling the
/// server's memory.
///
/// The answer's last line (its `result` or error) is written by the connection once the
/// stream ends, after every part.
final class PartWriter: Sendable {
    /// Why a stream stopped before its end.
    struct Stopped: Error, Sendable {
        let reason: String
    }

    private let channel: any Channel
    private let id: JSONValue
    private struct State {
        /// The last part's write, until the next part waits for it.
        var lastWrite: EventLoopFuture<Void>?
        /// Why the stream must stop (the server shuts down at once), once it must.
        var stopped: String?
        /// When a part last reached the socket (or the stream began).
        var progressed = NIODeadline.now()
    }
    private let state = NIOLockedValueBox(State())

    init(channel: any Channel, id: JSONValue) {
        self.channel = channel
        self.id = id
    }

    /// The envelope's bytes around a part's text: the line's limit less these is the most a
    /// part's text may take.
    var envelopeBytes: Int {
        RPCResponse.encodePart(id: id, []).count + 1
    }

    /// When a part last reached the socket: a stream whose client stops reading makes no progress
    /// and ends with the connection's idle timeout.
    var progressed: NIODeadline {
        state.withLockedValue { $0.progressed }
    }

    /// Writes one part (its text: ``AnswerParts``), once the part before it was written.
    /// Throws ``Stopped`` when the connection closed or the stream was stopped.
    func send(_ part: [UInt8]) async throws {
        let previous = state.withLockedValue { state in
            defer { state.lastWrite = nil }
            return state.lastWrite
        }
        if let previous {
            do {
                try await previous.get()
            } catch {
                throw Stopped(reason: "the connection closed")
            }
        }
        let line = RPCResponse.encodePart(id: id, part)
        var buffer = channel.allocator.buffer(capacity: line.count + 1)
        buffer.writeBytes(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        try state.withLockedValue { state in
            if let reason = state.stopped { throw Stopped(reason: reason) }
            state.progressed = .now()
        }
        let written = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(buffer, promise: written)
        written.futureResult.whenSuccess { [state] in state.withLockedValue { $0.progressed = .now() } }
        state.withLockedValue { $0.lastWrite = written.futureResult }
    }

    /// Has the next ``send(_:)`` throw (the server shuts down and cannot wait for the stream).
    func stop(_ reason: String) {
        state.withLockedValue { $0.stopped = reason }
    }
}
