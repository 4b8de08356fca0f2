import GraphCore
import HashTreeCollections

/// The objects of one concrete entity in a ``ReadState``, by reference: a persistent hash tree
/// for integer references (nearly every object) and one for string references.
///
/// Apart, because a tree's entries hold their keys: a ``StateKey`` holds a ``ReferenceObject``
/// (an integer or a string: 17 bytes, 24 beside a snapshot), a ``ReferenceNumber`` only an
/// integer (8). With a 24-byte snapshot, a full node of 32 entries then takes a 1,280-byte
/// allocation instead of 1,792: 40 bytes an object instead of 56 (a million objects: 16 MB).
struct EntityObjects: Sendable {
    private var numbered: TreeDictionary<ReferenceNumber, ObjectSnapshot> = [:]
    /// Nil while no object has a string reference (nearly always): a reader that copies an
    /// entity's objects out of the state's map then retains one tree, not two.
    private var named: TreeDictionary<StateKey, ObjectSnapshot>?

    init() {}

    /// The object with this reference.
    subscript(reference: ReferenceObject) -> ObjectSnapshot? {
        get {
            switch reference {
            case .int(let number): return numbered[ReferenceNumber(number)]
            case .string: return named?[StateKey(reference)]
            }
        }
        set {
            switch reference {
            case .int(let number): numbered[ReferenceNumber(number)] = newValue
            case .string:
                var tree = named ?? [:]
                named = nil  // the tree alone holds its nodes: changed in place
                tree[StateKey(reference)] = newValue
                named = tree.isEmpty ? nil : tree
            }
        }
    }

    /// The object `id` names here (an ID of this entity's store).
    subscript(id: ObjectID) -> ObjectSnapshot? {
        get { self[id.referenceObject] }
        set { self[id.referenceObject] = newValue }
    }

    var count: Int { numbered.count + (named?.count ?? 0) }

    /// The objects: integer references in increasing order (``ReferenceNumber``), then the others.
    var values: Values { Values(numbered: numbered.values, named: named?.values) }

    /// The objects of an ``EntityObjects``, in no particular order; a value that shares the trees.
    struct Values: Sequence, Sendable {
        let numbered: TreeDictionary<ReferenceNumber, ObjectSnapshot>.Values
        let named: TreeDictionary<StateKey, ObjectSnapshot>.Values?

        var count: Int { numbered.count + (named?.count ?? 0) }
        var isEmpty: Bool { numbered.isEmpty && named?.isEmpty != false }

        func makeIterator() -> Iterator {
            Iterator(numbered: numbered.makeIterator(), named: named?.makeIterator())
        }

        struct Iterator: IteratorProtocol {
            var numbered: TreeDictionary<ReferenceNumber, ObjectSnapshot>.Values.Iterator
            var named: TreeDictionary<StateKey, ObjectSnapshot>.Values.Iterator?
            var inNamed = false

            mutating func next() -> ObjectSnapshot? {
                if !inNamed {
                    if let next = numbered.next() { return next }
                    inNamed = true
                }
                return named?.next()
            }
        }
    }
}

/// The key of an object with an integer reference in ``EntityObjects``: the reference, hashed
/// as ``StateKey`` hashes it (one-to-one, so that the tree walks objects in reference order).
struct ReferenceNumber: Hashable, Sendable {
    let number: Int64

    init(_ number: Int64) {
        self.number = number
    }

    func hash(into hasher: inout Hasher) { hasher.combine(number) }

    func _rawHashValue(seed: Int) -> Int {
        StateKey.orderedHash(number)
    }
}
