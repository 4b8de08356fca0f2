#if canImport(Glibc)
import Glibc
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The docserver's shape: the event loop hands each save to one writer thread, which writes
/// every save waiting for it with one `pwrite` and one `fdatasync` (a group commit), then
/// gives the answers back to their event loops, one task per loop and group.
final class WriterThreadJournal: FloorJournal, @unchecked Sendable {
    // Sendable: `waiting` is only touched with `condition` locked; the rest by the writer thread.
    private struct Entry {
        let update: UpdateLine
        let record: ByteBuffer
        let handler: NIOLoopBound<SaveFloorHandler>
        let loop: EventLoop
    }

    private let file: FloorJournalFile
    /// True when saves wait.
    private let condition = ConditionLock(value: false)
    private var waiting: [Entry] = []
    private let thread = NIOThreadPool(numberOfThreads: 1)

    init(file: FloorJournalFile) {
        self.file = file
        thread.start()
        thread.submit { [self] _ in run() }
    }

    func submit(_ update: UpdateLine, record: ByteBuffer, handler: SaveFloorHandler, context: ChannelHandlerContext) {
        let entry = Entry(update: update, record: record, handler: NIOLoopBound(handler, eventLoop: context.eventLoop), loop: context.eventLoop)
        condition.lock()
        waiting.append(entry)
        condition.unlock(withValue: true)
    }

    private func run() {
        var group: [Entry] = []
        var bytes: [UInt8] = []
        var sequence: Int64 = 0
        let allocator = ByteBufferAllocator()
        while true {
            condition.lock(whenValue: true)
            swap(&group, &waiting)
            condition.unlock(withValue: false)
            bytes.removeAll(keepingCapacity: true)
            for entry in group {
                bytes.append(contentsOf: entry.record.readableBytesView)
                bytes.append(UInt8(ascii: "\n"))
            }
            do {
                try file.append(bytes)
            } catch {
                print("NIOLineFloor: \(error)")
                exit(1)
            }
            var answers: [ObjectIdentifier: (loop: EventLoop, answers: [(NIOLoopBound<SaveFloorHandler>, ByteBuffer)])] = [:]
            for entry in group {
                sequence += 1
                answers[ObjectIdentifier(entry.loop), default: (entry.loop, [])].answers
                    .append((entry.handler, entry.update.answer(sequence: sequence, allocator: allocator)))
            }
            for (loop, list) in answers.values {
                loop.execute {
                    for (handler, answer) in list { handler.value.answer(answer) }
                }
            }
            group.removeAll(keepingCapacity: true)
        }
    }
}
