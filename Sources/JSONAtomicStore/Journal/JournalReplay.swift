import Foundation
import GraphCore

/// What the journal's records do, in order, written down while they are read and applied
/// once at the end: the records' objects are already nodes of the ``StoreFileDecoder``
/// (after the snapshot's); applying keeps the last version of each object, drops deleted
/// ones, and leaves out links to objects the journal deleted (as the snapshot writer does).
/// The ``ReferenceResolver`` then checks the result as it checks a snapshot.
final class JournalReplay {
    enum Operation {
        case insert(node: Int32)
        case update(node: Int32)
        case delete(entity: Int32, reference: Int64)
    }

    /// Each operation with the byte offset of its record in the journal.
    private(set) var operations: [(operation: Operation, offset: Int)] = []
    /// The offset of the record being read.
    var recordOffset = 0

    func inserted(_ nodes: Range<Int>) {
        for node in nodes { operations.append((.insert(node: Int32(node)), recordOffset)) }
    }

    func updated(_ nodes: Range<Int>) {
        for node in nodes { operations.append((.update(node: Int32(node)), recordOffset)) }
    }

    func deleted(entity: Int32, reference: Int64) {
        operations.append((.delete(entity: entity, reference: reference), recordOffset))
    }

    /// Appends the operations of a piece of the journal read by its own decoder, whose nodes
    /// were appended to this one's decoder after `nodeBase` nodes.
    func append(_ piece: JournalReplay, nodeBase: Int) {
        let base = Int32(truncatingIfNeeded: nodeBase)
        operations.reserveCapacity(operations.count + piece.operations.count)
        for (operation, offset) in piece.operations {
            switch operation {
            case .insert(let node): operations.append((.insert(node: node &+ base), offset))
            case .update(let node): operations.append((.update(node: node &+ base), offset))
            case .delete: operations.append((operation, offset))
            }
        }
    }

    /// Forgets the operations of a record that turned out torn.
    func removeOperations(from count: Int) {
        if operations.count > count { operations.removeSubrange(count...) }
    }

    /// Applies the operations to the decoder's nodes (the first `snapshotNodes` from the
    /// snapshot, the rest from the journal); `journal` names the file in errors.
    ///
    /// An object keeps the place of its first node (the snapshot's, or the journal's insert):
    /// an update moves the new node's version and values into it, and its links replace the
    /// old ones. So without deletes the snapshot's nodes stay where they are, in the same
    /// array.
    func apply(to decoder: StoreFileDecoder, snapshotNodes: Int, journal: String) throws {
        guard !operations.isEmpty || decoder.nodes.count > snapshotNodes else { return }
        let count = decoder.nodes.count
        // Per node: whether it stays in the array (a journal update's node does not), and for a
        // node that stays, the node that holds its object's latest values and links.
        var alive = [Bool](repeating: true, count: count)
        var current = [Int32](repeating: -1, count: count)
        var table = ReferenceTable(maxReference: decoder.maxReference, count: count)
        for index in 0..<snapshotNodes { table[decoder.nodeReferences[index]] = Int32(truncatingIfNeeded: index) }
        var deleted: Set<Int64> = []
        let plan = decoder.plan
        func name(_ entity: Int32) -> String { plan.entities[Int(entity)].name }
        func damaged(_ offset: Int, _ reason: String) -> JSONStoreError {
            .invalidJournal(file: journal, offset: offset, reason: reason)
        }
        for (operation, offset) in operations {
            switch operation {
            case .insert(let node):
                let reference = decoder.nodeReferences[Int(node)]
                if let existing = table[reference] {
                    throw damaged(offset, "the record inserts \(name(decoder.nodeEntities[Int(node)])) \(reference), "
                                  + "but \(name(decoder.nodeEntities[Int(existing)])) \(reference) exists")
                }
                table[reference] = node
            case .update(let node):
                let reference = decoder.nodeReferences[Int(node)], entity = decoder.nodeEntities[Int(node)]
                guard let existing = table[reference], decoder.nodeEntities[Int(existing)] == entity else {
                    throw damaged(offset, "the record updates \(name(entity)) \(reference), which does not exist")
                }
                alive[Int(node)] = false
                current[Int(existing)] = node
            case .delete(let entity, let reference):
                guard let existing = table[reference], decoder.nodeEntities[Int(existing)] == entity else {
                    throw damaged(offset, "the record deletes \(name(entity)) \(reference), which does not exist")
                }
                alive[Int(existing)] = false
                table[reference] = nil
                deleted.insert(reference)
            }
        }
        // The values move on another thread (it waits on memory more than it works) while
        // the links are renumbered here; the nodes move in their array once it is done.
        // Without deletes no link is to drop, and no link is looked up.
        let isGone: ((Int64) -> Bool)? = deleted.isEmpty ? nil : { deleted.contains($0) && table[$0] == nil }
        var newIndex: [Int32] = []
        decoder.nodes.withUnsafeMutableBufferPointer { nodes in
            let moving = LatestValues(nodes: nodes, alive: alive, current: current)
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) { moving.move() }
            newIndex = relink(decoder, alive: alive, current: current, isGone: isGone)
            group.wait()
        }
        compactNodes(decoder, alive: alive, newIndex: newIndex)
    }

    /// Renumbers the links of the living nodes' latest values and the nodes' entities and
    /// references (in order); drops links to objects the journal deleted. Returns the new
    /// index of each node (-1 for a dropped one).
    private func relink(_ decoder: StoreFileDecoder, alive: [Bool], current: [Int32],
                        isGone: ((Int64) -> Bool)?) -> [Int32] {
        let count = alive.count
        let firstDead = alive.firstIndex(of: false) ?? count
        // The new index of each node that stays; for the nodes whose links count (a living
        // node not updated, or the latest update of one), the new index of the node they belong to.
        var newIndex = [Int32](repeating: -1, count: count)
        var linkOwner = [Int32](repeating: -1, count: count)
        var living = firstDead
        for index in 0..<firstDead { newIndex[index] = Int32(truncatingIfNeeded: index) }
        for index in firstDead..<count where alive[index] {
            newIndex[index] = Int32(truncatingIfNeeded: living)
            decoder.nodeEntities[living] = decoder.nodeEntities[index]
            decoder.nodeReferences[living] = decoder.nodeReferences[index]
            living += 1
        }
        for index in 0..<count where alive[index] {
            let owner = current[index] >= 0 ? Int(current[index]) : index
            linkOwner[owner] = newIndex[index]
        }
        decoder.nodeEntities.removeSubrange(min(living, decoder.nodeEntities.count)...)
        decoder.nodeReferences.removeSubrange(min(living, decoder.nodeReferences.count)...)
        decoder.toOne = Self.toOneLinks(decoder.toOne, nodes: count, newIndex: newIndex, current: current,
                                        linkOwner: linkOwner, isGone: isGone)
        var lists: [StoreFileDecoder.PendingList] = [], pool: [Int64] = []
        lists.reserveCapacity(decoder.toMany.count)
        pool.reserveCapacity(decoder.referencePool.count)
        for var list in decoder.toMany {
            let node = linkOwner[Int(list.node)]
            guard node >= 0 else { continue }
            let start = pool.count
            for slot in list.start..<(list.start + list.count) where !(isGone?(decoder.referencePool[slot]) ?? false) {
                pool.append(decoder.referencePool[slot])
            }
            list.node = node
            list.start = start
            list.count = pool.count - start
            lists.append(list)
        }
        decoder.toMany = lists
        decoder.referencePool = pool
        return newIndex
    }

    /// Keeps the living nodes, in order. They are moved within their array, not copied, and
    /// only from the first one dropped: the snapshot's stay in place unless the journal
    /// deletes one of them.
    private func compactNodes(_ decoder: StoreFileDecoder, alive: [Bool], newIndex: [Int32]) {
        let firstDead = alive.firstIndex(of: false) ?? alive.count
        var living = firstDead
        decoder.nodes.withUnsafeMutableBufferPointer { nodes in
            // Every place before `index` not yet filled holds a dead node: a swap sends one behind.
            for index in firstDead..<min(alive.count, nodes.count) where newIndex[index] >= 0 {
                if living != index { nodes.swapAt(living, index) }
                living += 1
            }
        }
        // The dead nodes, now behind the living ones, are freed on another thread: freeing a
        // hundred thousand replaced nodes (their values, their strings) is not the load's work.
        let dead = Array(decoder.nodes[min(living, decoder.nodes.count)...])
        decoder.nodes.removeSubrange(min(living, decoder.nodes.count)...)
        if !dead.isEmpty { DeadNodes(dead).freeLater() }
    }

    /// The to-one links of the nodes that stay, in their new order (the resolver reads each
    /// node's links as one run, in node order): each node's from the node that holds its
    /// latest values. The links of each node are one run in `links`, in node order.
    private static func toOneLinks(_ links: [StoreFileDecoder.PendingReference], nodes count: Int, newIndex: [Int32],
                                   current: [Int32], linkOwner: [Int32],
                                   isGone: ((Int64) -> Bool)?) -> [StoreFileDecoder.PendingReference] {
        var starts = [Int32](repeating: 0, count: count + 1)
        for item in links { starts[Int(item.node) + 1] &+= 1 }
        for index in 0..<count { starts[index + 1] &+= starts[index] }
        var result: [StoreFileDecoder.PendingReference] = []
        result.reserveCapacity(links.count)
        for index in 0..<count where newIndex[index] >= 0 {
            let owner = current[index] >= 0 ? Int(current[index]) : index
            let node = linkOwner[owner]
            for slot in Int(starts[owner])..<Int(starts[owner + 1]) {
                var item = links[slot]
                if let isGone, isGone(item.target) { continue }
                item.node = node
                result.append(item)
            }
        }
        return result
    }
}

/// The updated objects take their latest version and values; the old values go with the
/// update's snapshot, which is dropped.
private final class LatestValues: @unchecked Sendable {
    // Sendable: `move` runs on one thread while the thread that made it renumbers links
    // (it touches no snapshot) and then waits for it, with the decoder's array lent to both;
    // the other arrays are only read.
    private let nodes: UnsafeMutableBufferPointer<ObjectSnapshot>
    private let alive: [Bool]
    private let current: [Int32]

    init(nodes: UnsafeMutableBufferPointer<ObjectSnapshot>, alive: [Bool], current: [Int32]) {
        self.nodes = nodes
        self.alive = alive
        self.current = current
    }

    func move() {
        for index in current.indices where current[index] >= 0 && alive[index] {
            let latest = Int(current[index])
            nodes[index].version = nodes[latest].version
            let values = nodes[latest].values
            nodes[latest].values = nodes[index].values
            nodes[index].values = values
        }
    }
}

/// Reference → node index: an array when references are dense, else a dictionary.
private struct ReferenceTable {
    private var dense: [Int32] = []
    private var sparse: [Int64: Int32] = [:]

    init(maxReference: Int64, count: Int) {
        if maxReference <= Int64(count) * 4 + 1024 { dense = [Int32](repeating: -1, count: Int(maxReference) + 1) }
    }

    subscript(reference: Int64) -> Int32? {
        get {
            if dense.isEmpty { return sparse[reference] }
            guard reference >= 0, reference < Int64(dense.count) else { return nil }
            let value = dense[Int(reference)]
            return value < 0 ? nil : value
        }
        set {
            if dense.isEmpty { sparse[reference] = newValue; return }
            guard reference >= 0, reference < Int64(dense.count) else { return }
            dense[Int(reference)] = newValue ?? -1
        }
    }
}

/// Nodes no longer in the store, freed on a background thread.
private final class DeadNodes: @unchecked Sendable {
    // Sendable: the nodes are nobody else's; the background thread only releases them.
    private var nodes: [ObjectSnapshot]

    init(_ nodes: [ObjectSnapshot]) { self.nodes = nodes }

    func freeLater() {
        DispatchQueue.global(qos: .utility).async { self.nodes = [] }
    }
}
