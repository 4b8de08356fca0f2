import NIOCore

/// Where a connection's subscriptions write their notifications: its channel, on its event
/// loop, each subscription with a bounded buffer.
///
/// The feed thread hands a notification over with ``deliver(_:seq:line:)``, or a group commit's
/// all at once (``FeedOutbox``); on the event loop each is written when its subscription is
/// still open, and the connection flushed once after them. The bytes written
/// and not yet taken by the socket count against the subscription's buffer: a notification
/// that would pass it is not written; a `resync` notification is, and the subscription ends
/// (the connection, the other subscriptions and the writer go on).
final class SubscriptionSink: @unchecked Sendable {
    // @unchecked: `open` and `unflushed` are touched only on `loop`; the rest is immutable or Sendable.
    private struct Open {
        /// Bytes written to the channel and not yet written to the socket.
        var pendingBytes = 0
        /// The last sequence number written.
        var lastSequence: Int64
    }

    private let channel: Channel
    let loop: EventLoop
    /// The most bytes one subscription may have waiting for the client.
    let bufferBytes: Int
    private var open: [Int: Open] = [:]
    /// Notifications were written and not flushed yet (on the event loop).
    private var unflushed = false
    /// Told when a subscription ends by itself (a `resync`).
    private let ended: @Sendable (SubscriptionSink, Int) -> Void

    init(channel: Channel, bufferBytes: Int, ended: @escaping @Sendable (SubscriptionSink, Int) -> Void) {
        self.channel = channel
        loop = channel.eventLoop
        self.bufferBytes = bufferBytes
        self.ended = ended
    }

    /// Whether a subscription is open (on the event loop): such a connection waits for
    /// notifications and is not idle.
    var hasOpenSubscriptions: Bool {
        loop.assertInEventLoop()
        return !open.isEmpty
    }

    /// Opens subscription `number`, which starts after `seq` (before its answer is written).
    func start(_ number: Int, after seq: Int64) {
        loop.execute { self.open[number] = Open(lastSequence: seq) }
    }

    /// Ends subscription `number`: nothing more of it is written (notifications already
    /// handed over included).
    func stop(_ number: Int) {
        loop.execute { self.open[number] = nil }
    }

    /// Ends subscription `number` with a `resync` notification saying `reason` (nothing when
    /// it ended already).
    func resync(_ number: Int, reason: String) {
        loop.execute {
            guard let entry = self.open.removeValue(forKey: number), self.channel.isActive else { return }
            self.send(FeedRecordWriter.resync(subscription: number, seq: entry.lastSequence, reason: reason), promise: nil)
            EngineMeters.shared.resyncSent()
        }
    }

    /// Writes a notification of subscription `number` (commit `seq`), unless it ended: `line`
    /// is its whole line, `\n` included, written as it is (other connections may write the
    /// same buffer).
    func deliver(_ number: Int, seq: Int64, line: ByteBuffer) {
        loop.execute {
            self.write(number, seq: seq, line: line)
            self.flushWritten()
        }
    }

    /// ``deliver(_:seq:line:)`` on the event loop already, without the flush: the feed hands a
    /// group commit's notifications for one loop over in one task (``FeedOutbox``), and
    /// flushes each connection once after them with ``flushWritten()``.
    func write(_ number: Int, seq: Int64, line: ByteBuffer) {
        loop.assertInEventLoop()
        guard var entry = open[number], channel.isActive else { return }
        let size = line.readableBytes
        if entry.pendingBytes > 0, entry.pendingBytes + size > bufferBytes {
            open[number] = nil
            let reason = "the client did not read its notifications: more than \(bufferBytes) bytes waited for it; "
                + "fetch again, then subscribe with since \(entry.lastSequence)"
            send(FeedRecordWriter.resync(subscription: number, seq: entry.lastSequence, reason: reason), promise: nil)
            EngineMeters.shared.resyncSent()
            ended(self, number)
            return
        }
        entry.pendingBytes += size
        entry.lastSequence = seq
        open[number] = entry
        let promise = loop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { _ in
            self.open[number]?.pendingBytes -= size
        }
        channel.write(line, promise: promise)
        unflushed = true
        EngineMeters.shared.notificationWritten()
    }

    /// Flushes what ``write(_:seq:line:)`` wrote (nothing when it wrote nothing since).
    func flushWritten() {
        loop.assertInEventLoop()
        guard unflushed else { return }
        unflushed = false
        channel.flush()
    }

    private func send(_ bytes: [UInt8], promise: EventLoopPromise<Void>?) {
        var buffer = channel.allocator.buffer(capacity: bytes.count + 1)
        buffer.writeBytes(bytes)
        buffer.writeInteger(UInt8(ascii: "\n"))
        channel.writeAndFlush(buffer, promise: promise)
    }
}
