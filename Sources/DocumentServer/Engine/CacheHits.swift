import Foundation
import GraphCore

/// The objects readers found in a bounded cache, handed to the writer in batches so that its
/// budget keeps them (``ObjectBudget/reference(_:)``): a hit costs a reader an append under a
/// lock of its own, never the writer's; the writer is woken once a batch.
///
/// Lossy by design: while the writer has not taken a batch, at most ``pendingLimit`` IDs wait,
/// and the hits past them are not noted (the policy needs to know that an object is asked for,
/// not how often).
final class CacheHits: @unchecked Sendable {
    // @unchecked: `noted` and `pending` only with `lock` locked.
    private let lock = NSLock()
    private var noted: [ObjectID] = []
    private var pending = 0
    /// The hits handed over at once.
    static let batch = 1_024
    /// The most hits handed over and not yet taken by the writer.
    static let pendingLimit = 64 * batch
    private let deliver: @Sendable ([ObjectID]) -> Void

    /// `deliver` hands a batch to the writer and returns at once.
    init(deliver: @escaping @Sendable ([ObjectID]) -> Void) {
        self.deliver = deliver
        noted.reserveCapacity(Self.batch)
    }

    /// Notes that a reader found `id` in the cache.
    func note(_ id: ObjectID) {
        lock.lock()
        guard pending < Self.pendingLimit else {
            lock.unlock()
            return
        }
        noted.append(id)
        guard noted.count >= Self.batch else {
            lock.unlock()
            return
        }
        let full = noted
        noted = []
        noted.reserveCapacity(Self.batch)
        pending += full.count
        lock.unlock()
        deliver(full)
    }

    /// The writer took `count` of the hits handed over.
    func taken(_ count: Int) {
        lock.lock()
        pending = max(0, pending - count)
        lock.unlock()
    }
}
