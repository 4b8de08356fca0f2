#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// Redis's shape (`appendfsync always`): the event loop keeps the saves of what it read in
/// this turn and, once every ready connection is read (a task runs after the turn's I/O),
/// writes them with one `pwrite` and one `fdatasync` on its own thread, then writes the
/// answers. No other thread, no hand-over; the loop waits for the disk.
final class LoopJournal: FloorJournal, @unchecked Sendable {
    // Sendable: used on its one event loop only (the server has one).
    private let file: FloorJournalFile
    private var bytes: [UInt8] = []
    private var waiting: [(handler: SaveFloorHandler, update: UpdateLine)] = []
    private var scheduled = false
    private var sequence: Int64 = 0
    private let allocator = ByteBufferAllocator()

    init(file: FloorJournalFile) { self.file = file }

    func submit(_ update: UpdateLine, record: ByteBuffer, handler: SaveFloorHandler, context: ChannelHandlerContext) {
        bytes.append(contentsOf: record.readableBytesView)
        bytes.append(UInt8(ascii: "\n"))
        waiting.append((handler, update))
        guard !scheduled else { return }
        scheduled = true
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute { bound.value.commit() }
    }

    private func commit() {
        scheduled = false
        do {
            try file.append(bytes)
        } catch {
            print("NIOLineFloor: \(error)")
            exit(1)
        }
        bytes.removeAll(keepingCapacity: true)
        for (handler, update) in waiting {
            sequence += 1
            handler.answer(update.answer(sequence: sequence, allocator: allocator))
        }
        waiting.removeAll(keepingCapacity: true)
    }
}
