import Foundation
import JSONCore

/// Generates the objects of a large store on two threads while the calling thread writes.
///
/// The objects of each entity are cut into segments of ``segmentSize`` objects; worker
/// `w` generates segments `w`, `w + 2`, `w + 4`, … each with its own `yajl_gen`, as
/// objects separated by commas. The calling thread writes the segments in order, joined by
/// commas, so the bytes are exactly those of a one-thread save. At most ``window`` segments
/// wait in memory.
final class ParallelObjectWriter: @unchecked Sendable {
    // Sendable: the nodes are only read here, while the coordinator's lock is held for the
    // whole save (nothing writes them meanwhile); every mutable field below is guarded by
    // `condition`; a segment's bytes belong to its worker until handed over under the lock.

    static let segmentSize = 16_384
    static let window = 6
    static let workers = 2

    struct Segment {
        let group: Int
        let range: Range<Int>
    }

    let encoder: StoreFileEncoder
    let segments: [Segment]
    private let condition = NSCondition()
    private var done: [Int: [UInt8]] = [:]
    private var written = 0
    private var failure: Error?
    private var cancelled = false
    private var running = 0

    /// Whether the store is large enough for the threads to pay off.
    static func worthIt(_ encoder: StoreFileEncoder) -> Bool {
        encoder.groups.reduce(0) { $0 + $1.nodes.count } >= 4 * segmentSize
    }

    init(encoder: StoreFileEncoder) {
        self.encoder = encoder
        var segments: [Segment] = []
        for (index, group) in encoder.groups.enumerated() {
            var start = 0
            while start < group.nodes.count {
                let end = min(start + Self.segmentSize, group.nodes.count)
                segments.append(Segment(group: index, range: start..<end))
                start = end
            }
        }
        self.segments = segments
    }

    /// Starts the workers; then call ``take(_:)`` for each segment in order, and ``finish()``.
    func start() {
        running = Self.workers
        for worker in 0..<Self.workers {
            let thread = Thread { [self] in work(worker) }
            thread.name = "JSONAtomicStore writer \(worker)"
            thread.start()
        }
    }

    private func work(_ worker: Int) {
        defer {
            condition.lock()
            running -= 1
            condition.broadcast()
            condition.unlock()
        }
        do {
            let out = try JSONGenerator()
            for index in stride(from: worker, to: segments.count, by: Self.workers) {
                condition.lock()
                while index >= written + Self.window && !cancelled { condition.wait() }
                let stop = cancelled
                condition.unlock()
                if stop { return }
                let bytes = try generate(segments[index], with: out)
                condition.lock()
                done[index] = bytes
                condition.broadcast()
                condition.unlock()
            }
        } catch {
            condition.lock()
            if failure == nil { failure = error }
            cancelled = true
            condition.broadcast()
            condition.unlock()
        }
    }

    private func generate(_ segment: Segment, with out: JSONGenerator) throws -> [UInt8] {
        let group = encoder.groups[segment.group]
        let writer = ObjectWriter(entity: group.entity, out: out, dangling: encoder.dangling)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(segment.range.count * 160)
        out.reset(separator: nil)
        for index in segment.range {
            if index != segment.range.lowerBound { out.reset(separator: ",") }
            try writer.write(group.nodes[index], reference: group.references[index])
            if out.bufferedCount >= StoreFileEncoder.chunkSize { try out.flush { bytes.append(contentsOf: $0) } }
        }
        try out.flush { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// The bytes of segment `index`, once generated (segments must be taken in order).
    func take(_ index: Int) throws -> [UInt8] {
        condition.lock()
        defer { condition.unlock() }
        while done[index] == nil && failure == nil { condition.wait() }
        if let failure { throw failure }
        let bytes = done.removeValue(forKey: index) ?? []
        written = index + 1
        condition.broadcast()
        return bytes
    }

    /// Stops the workers (if still running) and waits for them: call before returning.
    func finish() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }
}
