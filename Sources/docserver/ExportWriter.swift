import DocumentProtocol
import Foundation
import GraphCore
import JSONAtomicStore
import JSONCore

/// Generates an export's lines: the header, then each entity's objects (entities by name,
/// objects by reference) in the wire form, one a line. Segments of objects are encoded on
/// every core (`ExportLineEncoder`), a window of them at a time, into buffers kept from one
/// window to the next; a window's bytes are written while the next window is encoded, in
/// order. The output never waits in memory beyond two windows.
struct ExportWriter {
    let model: ObjectModel
    let store: AtomicStore

    /// Objects encoded by one task.
    static let segmentSize = 8_192
    /// Segments encoded at once.
    static let window = 8

    /// Writes the header and every object; returns how many objects.
    func write(header: ExportFormat.Header, to output: ExportOutput) throws -> Int {
        let out = try JSONGenerator()
        try header.write(to: out)
        try out.flush { try output.write($0) }
        try output.write(Self.newline)
        let entities = model.entities.filter { !$0.isAbstract }
            .sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        var count = 0
        let first = ExportLineEncoder(model: model, storeUUID: header.storeUUID)
        let encoders = [first] + (1..<Self.window).map { _ in first.copy() }
        // Two sets of buffers: one being encoded into, the other (the window before) being written.
        let buffers = (0..<2).map { _ in (0..<Self.window).map { _ in ExportBytes(capacity: Self.segmentSize * 400) } }
        var pending: (set: Int, count: Int)?
        var set = 0
        for entity in entities {
            let snapshots = Self.objects(of: entity, in: store)
            count += snapshots.count
            var start = 0
            while start < snapshots.count {
                let segments = stride(from: start, to: min(snapshots.count, start + Self.window * Self.segmentSize), by: Self.segmentSize)
                    .map { $0..<min(snapshots.count, $0 + Self.segmentSize) }
                try run(segments: segments, of: snapshots, encoders: encoders, into: buffers[set],
                        writing: pending.map { (buffers[$0.set], $0.count) }, to: output)
                pending = (set, segments.count)
                set = 1 - set
                start = segments.last?.upperBound ?? snapshots.count
            }
        }
        if let pending {
            for buffer in buffers[pending.set].prefix(pending.count) { try output.write(buffer.bytes) }
        }
        return count
    }

    /// Encodes `segments` of `snapshots` into `buffers` on every core and, as one more task
    /// beside them, writes the buffers of the window before (`writing`) in order.
    private func run(segments: [Range<Int>], of snapshots: [ObjectSnapshot], encoders: [ExportLineEncoder], into buffers: [ExportBytes],
                     writing: ([ExportBytes], Int)?, to output: ExportOutput) throws {
        let failures = Failures(count: segments.count + 1)
        // The snapshots are values, only read while the tasks run; each task has its own encoder
        // and buffer (the writer task only reads the other set's buffers, which no task writes).
        let shared = UncheckedSendable((snapshots, encoders, buffers, writing, output))
        DispatchQueue.concurrentPerform(iterations: segments.count + 1) { index in
            let (snapshots, encoders, buffers, writing, output) = shared.value
            do {
                if index == segments.count {
                    guard let (previous, count) = writing else { return }
                    for buffer in previous.prefix(count) { try output.write(buffer.bytes) }
                } else {
                    let buffer = buffers[index]
                    buffer.removeAll()
                    for snapshot in snapshots[segments[index]] { try encoders[index].write(snapshot, to: buffer) }
                }
            } catch {
                failures.set(index, error)
            }
        }
        if let error = failures.first() { throw error }
    }

    /// The objects of one concrete entity, by reference: the one place an export reads a store.
    static func objects(of entity: EntityDescription, in store: AtomicStore) -> [ObjectSnapshot] {
        let nodes = store.cacheNodes(ofEntity: entity.name)
        // A loaded store keeps them by reference: checked first, without the keyed copy below.
        var previous = Int64.min
        var inOrder = true
        for node in nodes {
            guard case .int(let reference) = node.objectID.referenceObject else {
                // Not a JSON store's integer references: by the IDs' order.
                return nodes.sorted { WireObjectEncoder.referenceOrder($0.objectID, $1.objectID) }
            }
            if previous > reference { inOrder = false; break }
            previous = reference
        }
        if inOrder { return nodes }
        var keyed: [(reference: Int64, index: Int)] = []
        keyed.reserveCapacity(nodes.count)
        for (index, node) in nodes.enumerated() {
            guard case .int(let reference) = node.objectID.referenceObject else {
                return nodes.sorted { WireObjectEncoder.referenceOrder($0.objectID, $1.objectID) }
            }
            keyed.append((reference, index))
        }
        keyed.sort { $0.reference < $1.reference }
        return keyed.map { nodes[$0.index] }
    }

    private static var newline: UnsafeRawBufferPointer {
        let text: StaticString = "\n"
        return UnsafeRawBufferPointer(start: text.utf8Start, count: 1)
    }

    /// The first error of the tasks of one window, by task.
    final class Failures: @unchecked Sendable {
        // @unchecked: each slot is written by one task, under the lock, and read after all ended.
        private var slots: [Error?]
        private let lock = NSLock()
        init(count: Int) { slots = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ error: Error) { lock.withLock { slots[index] = error } }
        func first() -> Error? { lock.withLock { slots.lazy.compactMap { $0 }.first } }
    }
}
