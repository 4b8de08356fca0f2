import Foundation
import GraphCore

/// Reads a large journal on every core: the journal is read into memory and cut at record
/// boundaries (after a `\n`) into pieces, each read by its own ``JournalReader`` into its own
/// ``StoreFileDecoder`` and ``JournalReplay``. The pieces are then joined in file order into
/// the snapshot's decoder, as if one reader had read them all: a piece's first record must
/// follow the last of the piece before, only a last line without its `\n` is torn, and the
/// first error in file order is the one thrown, at its byte offset.
struct JournalPieces {
    /// The least bytes per piece: a smaller journal is read by one reader, as it streams.
    /// Task-local so that a test can move it for the stores it opens.
    @TaskLocal static var minimumPieceBytes = 1 << 20
    /// How many pieces per core (more than one evens out the pieces' costs).
    static let piecesPerCore = 2

    let path: String
    let decoder: StoreFileDecoder
    let replay: JournalReplay
    let baseSequence: Int64

    /// How many pieces a journal of `size` bytes is read in (1: by one reader, streaming).
    static func pieceCount(forSize size: Int) -> Int {
        let cores = max(ProcessInfo.processInfo.activeProcessorCount, 1)
        guard cores > 1 else { return 1 }
        return max(1, min(size / max(minimumPieceBytes, 1), cores * piecesPerCore))
    }

    /// Reads the journal in `file` in `count` pieces and joins them into the decoder and replay.
    func read(_ file: FileBuffer, pieces count: Int) throws -> JournalReader.Result {
        let bytes = UnsafeRawBufferPointer(file.bytes)
        let bounds = Self.cuts(bytes, count: count)
        if let entity = decoder.plan.entities.first {
            _ = decoder.store.objectID(for: entity.entity, referenceObject: .int(1))  // the store's key, made once here
        }
        // The first piece reads the header (or finds none); the others read records of its format.
        let format: JournalFormat = bytes.starts(with: JournalFormat.header) ? .version2 : .version1
        let slots = PieceSlots(bytes: bytes, bounds: bounds, path: path, plan: decoder.plan, store: decoder.store,
                               baseSequence: baseSequence, format: format)
        DispatchQueue.concurrentPerform(iterations: bounds.count - 1) { slots.read($0) }
        decoder.trace.mark("journal: pieces")
        let result = try join(slots.slots.compactMap { $0 })
        decoder.trace.mark("journal: join")
        return result
    }

    /// Where the pieces begin and end: `count` about equal pieces, each cut after a `\n`
    /// (fewer when lines are long), from 0 to the journal's end.
    static func cuts(_ bytes: UnsafeRawBufferPointer, count: Int) -> [Int] {
        var bounds = [0]
        guard let base = bytes.baseAddress else { return [0, 0] }
        for index in 1..<max(count, 1) {
            let target = max(bytes.count / count * index, bounds[bounds.count - 1])
            guard target < bytes.count, let found = memchr(base + target, 0x0A, bytes.count - target) else { break }
            let cut = UnsafeRawPointer(found) - base + 1
            if cut < bytes.count, cut > bounds[bounds.count - 1] { bounds.append(cut) }
        }
        bounds.append(bytes.count)
        return bounds
    }

    /// Joins the pieces in file order, with the checks one reader makes between two records.
    private func join(_ slots: [PieceSlots.Slot]) throws -> JournalReader.Result {
        var result = JournalReader.Result()
        var expected: Int64?
        var tornBytes = 0
        for (index, slot) in slots.enumerated() {
            let piece = slot.piece
            if index > 0 {
                if let first = piece.result.firstSequence {
                    try JournalReader.checkFollows(first, expected: expected, baseSequence: baseSequence, path: path,
                                                   offset: piece.result.firstOffset)
                }
            }
            if let error = piece.error { throw error }
            let nodeBase = decoder.nodes.count
            decoder.append(slot.decoder)
            replay.append(slot.replay, nodeBase: nodeBase)
            if piece.result.records > 0 {
                result.records += piece.result.records
                result.lastSequence = piece.result.lastSequence
                expected = JournalReader.next(after: piece.result.lastSequence)
            }
            result.appliedRecords += piece.result.appliedRecords
            result.nextReference = max(result.nextReference, piece.result.nextReference)
            result.goodLength = max(result.goodLength, piece.result.goodLength)
            if index == 0 { result.format = piece.result.format }
            if index == slots.count - 1 {
                // A last line without its `\n` is torn, however it parses; nothing else is.
                tornBytes = piece.pending
            }
        }
        result.tornBytes = tornBytes
        return result
    }
}

/// The pieces being read, one slot each, each written by the thread that reads it.
private final class PieceSlots: @unchecked Sendable {
    // Sendable: each slot is written by one iteration of `concurrentPerform`, and read after
    // it returned; each iteration makes its own decoder, replay and parser. The journal's
    // bytes and the plan are only read, and the store only to make IDs (its key is made
    // before the pieces are read).
    struct Slot {
        let piece: JournalReader.Piece
        let decoder: StoreFileDecoder
        let replay: JournalReplay
    }

    /// One slot per piece, written through the pointer (each thread its own element: no
    /// thread changes the array's storage while another writes to it).
    private let storage: UnsafeMutableBufferPointer<Slot?>
    let bytes: UnsafeRawBufferPointer
    let bounds: [Int]
    let path: String
    let plan: ModelPlan
    let store: AtomicStore
    let baseSequence: Int64
    let format: JournalFormat

    init(bytes: UnsafeRawBufferPointer, bounds: [Int], path: String, plan: ModelPlan, store: AtomicStore, baseSequence: Int64,
         format: JournalFormat) {
        self.format = format
        storage = .allocate(capacity: max(bounds.count - 1, 0))
        storage.initialize(repeating: nil)
        self.bytes = bytes
        self.bounds = bounds
        self.path = path
        self.plan = plan
        self.store = store
        self.baseSequence = baseSequence
    }

    deinit {
        storage.deinitialize()
        storage.deallocate()
    }

    /// The slots, once every piece has been read.
    var slots: [Slot?] { Array(storage) }

    /// Reads piece `index` into its slot.
    func read(_ index: Int) {
        let range = bounds[index]..<bounds[index + 1]
        let decoder = StoreFileDecoder(file: path, plan: plan, store: store)
        decoder.reserve(forFileSize: range.count)
        let replay = JournalReplay()
        let reader = JournalReader(path: path, decoder: decoder, replay: replay, baseSequence: baseSequence,
                                   checksStart: index == 0, format: index == 0 ? nil : format)
        let piece = reader.read(piece: UnsafeRawBufferPointer(rebasing: bytes[range]), at: range.lowerBound)
        storage[index] = Slot(piece: piece, decoder: decoder, replay: replay)
    }
}
