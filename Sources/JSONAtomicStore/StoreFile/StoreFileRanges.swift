import Foundation
import GraphCore
import JSONCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Parses a store file in memory on every core: the objects are cut into ranges
/// (``StoreFileSplitter``), each read by its own ``RangeScanner`` into its own decoder.
/// Meanwhile another thread has the parser of the whole file (yajl) read the start, then go
/// on in file order as the ranges are done: at each range's `,` it must stand between two
/// objects of the range's entity; if so, and the scanner accepted the range and its decoder
/// had no error, the range's objects are appended and its
/// bytes passed over; otherwise the range is parsed in place. So the result is that of one
/// parse, and every error is that of one parse, at the same byte, line and column.
///
/// Pages of a range's bytes are given back to the system once it is parsed (the file is
/// read again for a range parsed in place), so that the file and the objects made from it
/// are not both in memory at the peak.
struct StoreFileRanges {
    let file: FileBuffer
    let decoder: StoreFileDecoder
    /// How many ranges per core.
    static let rangesPerCore = 4

    init(file: FileBuffer, decoder: StoreFileDecoder) {
        self.file = file
        self.decoder = decoder
    }

    /// One range: `[start, end)` holds objects of one entity (if the guess holds).
    struct Range {
        let comma: Int
        let start: Int
        let end: Int
        var entity: EntityPlan?
    }

    /// Parses the file into the decoder; false when it has no places to cut (nothing was parsed).
    func parse() throws -> Bool {
        let bytes = UnsafeRawBufferPointer(file.bytes)
        let cores = max(ProcessInfo.processInfo.activeProcessorCount, 1)
        let splits = StoreFileSplitter.splits(in: bytes, count: cores * Self.rangesPerCore)
        guard splits.count >= 2 else { return false }
        let ranges = findEntities(of: splits, in: bytes)

        // The start, up to the first array of objects (where the metadata is in a file this
        // store writes): the store's identifier is then known before other threads make IDs.
        let parser = JSONEventParser(handler: decoder)
        let firstComma = splits[0].comma
        var fed = 0
        while fed < firstComma, !decoder.isInObjectList {
            let end = min(fed + (64 << 10), firstComma)
            try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[fed..<end]))
            fed = end
        }
        if let entity = decoder.plan.entities.first {
            _ = decoder.store.objectID(for: entity.entity, referenceObject: .int(1))  // the store's key, made once here
        }
        decoder.holdsStoreIdentifier = true

        // The ranges are parsed on every core while another thread joins them in file order as
        // they come: the parser of the whole file reads the
        // rest of the start, then passes over each range that parsed, or parses it in place.
        let results = RangeResults(count: ranges.count)
        let shared = Shared(decoder: decoder, parser: parser, file: file, ranges: ranges, results: results)
        let startFrom = fed
        let joining = DispatchGroup()
        DispatchQueue.global().async(group: joining) { shared.join(from: startFrom, to: firstComma) }
        DispatchQueue.concurrentPerform(iterations: ranges.count) { shared.parseRange($0) }
        joining.wait()
        decoder.releaseStoreIdentifier()
        decoder.trace.mark("parse and join ranges")
        if let error = shared.joinError { throw error }
        try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[(ranges.last?.end ?? firstComma)...]))
        try parser.finish()
        return true
    }

    /// The ranges between the cuts, each with the entity whose array holds it (a guess).
    private func findEntities(of splits: [StoreFileSplitter.Split], in bytes: UnsafeRawBufferPointer) -> [Range] {
        let count = splits.count - 1
        let names = NameSlots(count: count, plan: decoder.plan, bytes: bytes)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let lower = index == 0 ? 0 : splits[index - 1].start
            names.find(index, from: lower, before: splits[index].start)
        }
        var ranges: [Range] = []
        var entity: EntityPlan?
        for index in 0..<count {
            if let found = names.get(index) { entity = found }
            ranges.append(Range(comma: splits[index].comma, start: splits[index].start, end: splits[index + 1].comma,
                                entity: entity))
        }
        return ranges
    }
}

extension StoreFileDecoder {
    /// Whether the decoder reads the array of an entity's objects.
    var isInObjectList: Bool {
        if case .objectList = state { return true }
        return false
    }
}

/// What the threads of a ranged parse share.
private final class Shared: @unchecked Sendable {
    // Sendable: during `concurrentPerform`, the decoder and parser of the whole file are used by
    // iteration 0 alone; each other iteration makes its own parser and decoder and writes only
    // its own result slot and its own range's pages. The plan, the file's bytes and the store
    // are read only (the store's identifier is not written while ranges are decoded:
    // `holdsStoreIdentifier`).
    let decoder: StoreFileDecoder
    let parser: JSONEventParser
    let file: FileBuffer
    let ranges: [StoreFileRanges.Range]
    let results: RangeResults
    /// The first error of the parse in file order (written by the joining thread).
    var joinError: Error?

    init(decoder: StoreFileDecoder, parser: JSONEventParser, file: FileBuffer, ranges: [StoreFileRanges.Range],
         results: RangeResults) {
        self.decoder = decoder
        self.parser = parser
        self.file = file
        self.ranges = ranges
        self.results = results
    }

    /// Parses the start up to the first range, then joins each range as soon as it is parsed.
    func join(from start: Int, to end: Int) {
        let bytes = UnsafeRawBufferPointer(file.bytes)
        do {
            try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            file.release(0..<end)
            for (index, range) in ranges.enumerated() {
                let piece = range.comma..<range.end
                let outcome = results.wait(index)
                if let outcome, let entity = range.entity, decoder.isBetweenObjects(of: entity) {
                    decoder.append(outcome.decoder)
                    parser.skip(byteCount: piece.count, lines: outcome.lines)
                } else {
                    try file.restore(range.start..<range.end)
                    try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[piece]))
                }
            }
        } catch {
            joinError = error
            results.cancel()
        }
    }

    func parseRange(_ index: Int) {
        let range = ranges[index]
        // The range is handed to the joining thread after its pages are released (a range
        // parsed in place is read again first).
        defer { results.finish(index) }
        defer { file.release(range.start..<range.end) }
        guard let entity = range.entity, !results.isCancelled else { return }
        let bytes = UnsafeRawBufferPointer(file.bytes)
        let text = UnsafeRawBufferPointer(rebasing: bytes[range.start..<range.end])
        let decoder = StoreFileDecoder.forRange(of: entity, file: self.decoder.file, plan: self.decoder.plan,
                                                store: self.decoder.store, byteCount: text.count)
        var scanner = RangeScanner(handler: decoder)
        defer { scanner.deallocate() }
        do {
            // Declined or failed: parsed again in place, where an error gets its place.
            guard try scanner.scanElements(text) else { return }
        } catch {
            return
        }
        guard decoder.finishedRange else { return }
        let comma = JSONEventParser.Lines(of: UnsafeRawBufferPointer(rebasing: bytes[range.comma..<range.start]))
        let lines = JSONEventParser.Lines(comma, then: JSONEventParser.Lines(of: text), at: range.start - range.comma)
        results.set(index, RangeResults.Outcome(decoder: decoder, lines: lines))
    }
}

/// The decoded ranges, one slot each, each handed from the thread that parsed it to the
/// joining thread.
private final class RangeResults: @unchecked Sendable {
    // Sendable: each slot is written by one thread before it signals the slot's semaphore,
    // and read by the joining thread after it waited on it.
    struct Outcome {
        let decoder: StoreFileDecoder
        let lines: JSONEventParser.Lines
    }

    private let slots: UnsafeMutableBufferPointer<Outcome?>
    private let ready: [DispatchSemaphore]
    private let cancelled = Atomic<Bool>(false)

    init(count: Int) {
        slots = .allocate(capacity: max(count, 1))
        slots.initialize(repeating: nil)
        ready = (0..<count).map { _ in DispatchSemaphore(value: 0) }
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    func set(_ index: Int, _ outcome: Outcome) { slots[index] = outcome }

    /// The range is done (parsed, or not); its slot is final.
    func finish(_ index: Int) { ready[index].signal() }

    /// Waits until the range is done, and takes its outcome (nil: parse it in place).
    func wait(_ index: Int) -> Outcome? {
        ready[index].wait()
        defer { slots[index] = nil }
        return slots[index]
    }

    /// The parse failed: the ranges not begun yet need not be parsed.
    func cancel() { cancelled.store(true, ordering: .relaxed) }
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
}

/// The entity name found before each cut: nil (none found), .some(nil) (a name that is no entity).
private final class NameSlots: @unchecked Sendable {
    // Sendable: each slot is written by one thread during `concurrentPerform` and read after it;
    // the plan and the bytes are only read.
    private let slots: UnsafeMutableBufferPointer<EntityPlan??>
    private let plan: ModelPlan
    private let bytes: UnsafeRawBufferPointer

    init(count: Int, plan: ModelPlan, bytes: UnsafeRawBufferPointer) {
        slots = .allocate(capacity: max(count, 1))
        slots.initialize(repeating: nil)
        self.plan = plan
        self.bytes = bytes
    }

    /// Looks for the last entity array starting in `lower..<upper`.
    func find(_ index: Int, from lower: Int, before upper: Int) {
        guard let name = StoreFileSplitter.entityName(in: bytes, from: lower, before: upper) else { return }
        slots[index] = plan.entity(named: name).map { .some($0) } ?? .some(nil)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    func set(_ index: Int, _ value: EntityPlan??) { slots[index] = value }
    func get(_ index: Int) -> EntityPlan?? { slots[index] }
}

extension FileBuffer {
    /// Gives the whole pages inside `range` back to the system (they read as zeros after).
    func release(_ range: Swift.Range<Int>) {
        guard let base = bytes.baseAddress else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard page > 0 else { return }
        let address = Int(bitPattern: base)
        let first = (address + range.lowerBound + page - 1) / page * page
        let last = (address + range.upperBound) / page * page
        guard last > first, let pointer = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(pointer, last - first, MADV_DONTNEED)
    }

    /// Reads `range` of the file into the buffer again (after ``release(_:)``).
    func restore(_ range: Swift.Range<Int>) throws {
        let target = UnsafeMutableRawBufferPointer(rebasing: bytes[range])
        switch Self.pread(descriptor, into: target, at: range.lowerBound) {
        case .complete: return
        case .short: throw JSONStoreError.io(path: path, operation: "read", errno: EIO)
        case .failed(let error): throw JSONStoreError.io(path: path, operation: "read", errno: error)
        }
    }
}
