/// A dictionary keyed by ``ObjectID``, made for millions of objects.
///
/// A `Dictionary<ObjectID, _>` compares keys by following each ID's pointer, a cache miss
/// per probe. Here IDs with integer references (nearly all) are split by store and entity
/// hierarchy, and within each part kept by the bare integer in an ``IntegerKeyedTable``
/// (an array for dense references). IDs with string references go to a dictionary.
struct ObjectIDTable<Element> {
    private struct Partition {
        let store: StoreKey?
        let root: EntityDescription
        var table: IntegerKeyedTable<Element>
    }

    private var partitions: [Partition] = []
    private var others: [ObjectID: Element] = [:]

    init() {}

    private func partitionIndex(of id: ObjectID) -> Int? {
        let storage = id.storage
        let root = storage.entity.root
        for index in partitions.indices {
            let partition = partitions[index]
            guard partition.store === storage.store else { continue }
            if partition.root === root || partition.root.name == root.name { return index }
        }
        return nil
    }

    private static func isInteger(_ id: ObjectID) -> Bool {
        id.storage.number != ObjectID.StringStorage.marker || !(id.storage is ObjectID.StringStorage)
    }

    subscript(id: ObjectID) -> Element? {
        get {
            guard Self.isInteger(id) else { return others[id] }
            guard let index = partitionIndex(of: id) else { return nil }
            return partitions[index].table[id.storage.number]
        }
        set {
            guard Self.isInteger(id) else {
                others[id] = newValue
                return
            }
            if let index = partitionIndex(of: id) {
                partitions[index].table[id.storage.number] = newValue
            } else if let newValue {
                var table = IntegerKeyedTable<Element>()
                table[id.storage.number] = newValue
                partitions.append(Partition(store: id.storage.store, root: id.storage.entity.root, table: table))
            }
        }
    }

    /// The element of the ID of `entity` in `store` with `reference`, found without making
    /// the ID for an integer reference (an index entry names its object by reference alone).
    func element(entity: EntityDescription, store: StoreKey, reference: ReferenceObject) -> Element? {
        guard case .int(let number) = reference else {
            return others[ObjectID(entity: entity, store: store, reference: reference)]
        }
        let root = entity.root
        for partition in partitions where partition.store === store {
            if partition.root === root || partition.root.name == root.name { return partition.table[number] }
        }
        return nil
    }

    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> Element? {
        guard Self.isInteger(id) else { return others.removeValue(forKey: id) }
        guard let index = partitionIndex(of: id) else { return nil }
        return partitions[index].table.removeValue(forKey: id.storage.number)
    }

    /// Makes room for `count` more elements in the part that `id` belongs to.
    mutating func reserveCapacity(_ count: Int, like id: ObjectID) {
        guard Self.isInteger(id) else {
            others.reserveCapacity(others.count + count)
            return
        }
        if let index = partitionIndex(of: id) {
            partitions[index].table.reserveCapacity(count, startingAt: id.storage.number)
        } else {
            var table = IntegerKeyedTable<Element>()
            table.reserveCapacity(count, startingAt: id.storage.number)
            partitions.append(Partition(store: id.storage.store, root: id.storage.entity.root, table: table))
        }
    }

    var count: Int { partitions.reduce(others.count) { $0 + $1.table.count } }

    var isEmpty: Bool { count == 0 }

    /// Every element, in no particular order.
    var values: [Element] {
        var all: [Element] = []
        all.reserveCapacity(count)
        for partition in partitions { partition.table.forEach { all.append($0) } }
        all.append(contentsOf: others.values)
        return all
    }

    /// Calls `body` with every element, in no particular order; `backwards`, in the opposite
    /// order (two threads walking one table from its two ends share no memory until they meet).
    func forEach(backwards: Bool = false, _ body: (Element) throws -> Void) rethrows {
        if backwards {
            for element in others.values.reversed() { try body(element) }
            for partition in partitions.reversed() { try partition.table.forEach(backwards: true, body) }
        } else {
            for partition in partitions { try partition.table.forEach(body) }
            for element in others.values { try body(element) }
        }
    }

    /// How many elements have temporary IDs.
    var temporaryCount: Int {
        partitions.reduce(0) { $0 + ($1.store == nil ? $1.table.count : 0) } + others.keys.filter(\.isTemporary).count
    }

    /// Removes every element with a temporary ID at once.
    mutating func removeTemporary() {
        partitions.removeAll { $0.store == nil }
        if others.keys.contains(where: \.isTemporary) { others = others.filter { !$0.key.isTemporary } }
    }

    mutating func removeAll() {
        partitions.removeAll()
        others.removeAll()
    }
}
