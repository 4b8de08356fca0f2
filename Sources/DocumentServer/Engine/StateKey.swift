import GraphCore

/// The key of an object in a ``ReadState``: its reference, hashed so that the state's hash
/// trees keep objects with integer references in the order of their references. A state keeps
/// one tree per concrete entity of one store, so the reference names the object there; and a
/// fetch index's entries, which hold references, find their objects without making an ID.
///
/// A hash tree iterates in the order of its hash values' bits, lowest 5 bits first. With
/// ordinary hashing that order is random, and a `fetch`, which walks every object of an
/// entity, jumps all over memory: a cache miss for each object (measured: 5-8x slower than
/// walking them in order). Objects are loaded, and their values allocated, in reference
/// order; so here the low 30 bits of an integer reference go into the hash most significant
/// 5-bit group first, and the walk follows the references. The mapping is one-to-one, so
/// distinct references never collide. References are numbered by the store, never chosen
/// by a client; string references are hashed as usual.
struct StateKey: Hashable, Sendable {
    let reference: ReferenceObject

    init(_ reference: ReferenceObject) {
        self.reference = reference
    }

    /// The key of `id` in its entity's tree.
    init(_ id: ObjectID) {
        reference = id.referenceObject
    }

    func hash(into hasher: inout Hasher) { hasher.combine(reference) }

    func _rawHashValue(seed: Int) -> Int {
        guard case .int(let reference) = reference else {
            var hasher = Hasher()
            hasher.combine(self.reference)
            return hasher.finalize()
        }
        return Self.orderedHash(reference)
    }

    /// The hash of integer reference `reference`: its low 30 bits, most significant 5-bit
    /// group first, below the rest.
    static func orderedHash(_ reference: Int64) -> Int {
        let bits = UInt64(bitPattern: reference)
        var hash = (bits >> 30) << 30
        for level in 0..<6 {
            hash |= ((bits >> UInt64(25 - 5 * level)) & 31) << UInt64(5 * level)
        }
        return Int(bitPattern: UInt(truncatingIfNeeded: hash))
    }
}
