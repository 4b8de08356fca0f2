import NIOCore

/// The notifications of one group commit on their way to the connections, by event loop.
///
/// Each event loop gets its notifications in one task, in commit order; each connection
/// writes its notifications of the whole group, then is flushed once: one write to its socket
/// for every commit of the group that concerns it, where each notification was one (a
/// subscriber of everything, as a `RemoteStore` is, got a system call per save of a group).
struct FeedOutbox {
    /// One notification: the line of subscription `number` of `sink`'s connection, for commit `seq`.
    struct Note: Sendable {
        let sink: SubscriptionSink
        let number: Int
        let seq: Int64
        let line: ByteBuffer
    }

    private var byLoop: [ObjectIdentifier: (loop: any EventLoop, notes: [Note])] = [:]

    mutating func add(_ line: ByteBuffer, number: Int, of sink: SubscriptionSink, seq: Int64) {
        byLoop[ObjectIdentifier(sink.loop), default: (sink.loop, [])].notes.append(Note(sink: sink, number: number, seq: seq, line: line))
    }

    /// Hands every notification to its event loop, and empties the outbox.
    mutating func send() {
        for (_, batch) in byLoop {
            let notes = batch.notes
            batch.loop.execute {
                for note in notes { note.sink.write(note.number, seq: note.seq, line: note.line) }
                for note in notes { note.sink.flushWritten() }
            }
        }
        byLoop.removeAll()
    }
}
