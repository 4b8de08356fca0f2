import GraphCore
import JSONCore

/// Writes object IDs of an export in their URI form, `graph://<storeUUID>/<Entity>/<reference>`,
/// straight from bytes: each entity's `graph://<storeUUID>/<Entity>/` kept once, the reference's
/// digits formatted after it, no String made per ID. Any other ID (another store, a reference
/// that is not a non-negative integer) is written from its `uriRepresentation`, so the text is
/// always exactly that.
///
/// Not `Sendable`: one writer per thread (``copy()`` for another).
final class ExportIDWriter {
    private let storeUUID: String
    /// Per entity met so far: the bytes before the reference.
    private var prefixes: [(entity: EntityDescription, bytes: [UInt8])] = []

    init(storeUUID: String) {
        self.storeUUID = storeUUID
    }

    /// A writer for another thread.
    func copy() -> ExportIDWriter { ExportIDWriter(storeUUID: storeUUID) }

    /// Writes `id` as one JSON string.
    func write(_ id: ObjectID, _ out: JSONGenerator) throws {
        guard case .int(let number) = id.referenceObject, number >= 0, id.storeIdentifier == storeUUID else {
            try out.string(id.uriRepresentation)
            return
        }
        let entity = id.entity
        var slot = 0
        while slot < prefixes.count, prefixes[slot].entity !== entity { slot += 1 }
        if slot == prefixes.count { prefixes.append((entity, Array("graph://\(storeUUID)/\(entity.name)/".utf8))) }
        try prefixes[slot].bytes.withUnsafeBytes { prefix in
            try withUnsafeTemporaryAllocation(byteCount: prefix.count + 40, alignment: 1) { buffer in
                guard let base = buffer.baseAddress, let prefixBase = prefix.baseAddress else { return }
                base.copyMemory(from: prefixBase, byteCount: prefix.count)
                // The digits, written backwards from the end (20 bytes past their place: no overlap), then moved after the prefix.
                var magnitude = UInt64(number)
                var end = buffer.count
                repeat {
                    end -= 1
                    buffer[end] = UInt8(truncatingIfNeeded: 48 &+ magnitude % 10)
                    magnitude /= 10
                } while magnitude != 0
                let digits = buffer.count - end
                (base + prefix.count).copyMemory(from: base + end, byteCount: digits)
                try out.string(UnsafeRawBufferPointer(start: base, count: prefix.count + digits))
            }
        }
    }
}
