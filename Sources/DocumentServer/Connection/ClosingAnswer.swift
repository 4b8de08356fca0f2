import NIOCore

/// Sends one last line and closes the connection without resetting it: the output is
/// half-closed after the line, what the client still sends is read and dropped, and the
/// connection is closed when the client closes or after `grace`.
enum ClosingAnswer {
    static func send(_ line: [UInt8], on channel: Channel, grace: TimeAmount = .seconds(2)) {
        var buffer = channel.allocator.buffer(capacity: line.count + 1)
        buffer.writeBytes(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        channel.writeAndFlush(buffer).whenComplete { _ in
            guard grace > .zero else {
                channel.close(promise: nil)
                return
            }
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: grace) { channel.close(promise: nil) }
        }
    }
}
