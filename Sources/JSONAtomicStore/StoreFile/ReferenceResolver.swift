import Foundation
import GraphCore

/// After the parse: turns the references the decoder kept into object IDs, checking that
/// each exists, is unique and is of the destination entity, then that the two sides of
/// every relationship agree (`docs/FILE_FORMAT.md`, "Redundancy").
///
/// Linear in the number of links, except many-to-many relationships, whose links are
/// sorted once to compare the two sides.
struct ReferenceResolver {
    let file: String
    let plan: ModelPlan
    /// The decoder's snapshots, lent for the resolve: their relationship values are written
    /// in place (each by one thread).
    let nodes: UnsafeMutableBufferPointer<ObjectSnapshot>
    let nodeEntities: [Int32]
    let nodeReferences: [Int64]
    /// Each entity's flat properties, by entity index (plain memory, read per link).
    let flats: [FlatProperties]
    /// Whether the nodes' relationship values are set from the references (a load), or are
    /// IDs already and only checked (an import's objects, ``check(file:plan:nodes:nodeEntities:nodeReferences:maxReference:toOne:toMany:pool:)``).
    let writesValues: Bool
    /// Reference → index in `nodes`: an array when references are dense, else a dictionary.
    private var dense: [Int32] = []
    private var sparse: [Int64: Int32] = [:]

    init(decoder: StoreFileDecoder, nodes: UnsafeMutableBufferPointer<ObjectSnapshot>) {
        self.init(file: decoder.file, plan: decoder.plan, nodes: nodes, nodeEntities: decoder.nodeEntities,
                  nodeReferences: decoder.nodeReferences, writesValues: true)
    }

    init(file: String, plan: ModelPlan, nodes: UnsafeMutableBufferPointer<ObjectSnapshot>, nodeEntities: [Int32],
         nodeReferences: [Int64], writesValues: Bool) {
        self.file = file
        self.plan = plan
        self.nodes = nodes
        self.nodeEntities = nodeEntities
        self.nodeReferences = nodeReferences
        self.writesValues = writesValues
        flats = plan.entities.map(\.flat)
    }

    /// Resolves and checks everything; the nodes' relationship values are set on return.
    static func resolve(_ decoder: StoreFileDecoder) throws {
        try decoder.nodes.withUnsafeMutableBufferPointer { nodes in try resolve(decoder, nodes: nodes) }
    }

    private static func resolve(_ decoder: StoreFileDecoder, nodes: UnsafeMutableBufferPointer<ObjectSnapshot>) throws {
        var resolver = ReferenceResolver(decoder: decoder, nodes: nodes)
        try resolver.buildTable(maxReference: decoder.maxReference)
        decoder.trace.mark("resolve: reference table")
        try resolver.resolveToOne(&decoder.toOne)
        decoder.trace.mark("resolve: to-one")
        try resolver.resolveToMany(decoder.toMany, pool: &decoder.referencePool)
        decoder.trace.mark("resolve: to-many")
        try resolver.checkInverses(toOne: decoder.toOne, toMany: decoder.toMany, pool: decoder.referencePool)
        decoder.trace.mark("resolve: inverses")
    }

    /// Checks snapshots whose relationship values are IDs already, as a load of a file holding
    /// them would (every reference exists once, is of the destination entity, is listed once
    /// in a to-many value; both sides of every relationship agree), without changing them: the
    /// check of `docserver import` before it writes its objects. `toOne`, `toMany` and `pool`
    /// are the links as a decoder of that file would have gathered them (in node order); they
    /// are changed as by a load. Errors name `file`.
    static func check(file: String, plan: ModelPlan, nodes: inout [ObjectSnapshot], nodeEntities: [Int32],
                      nodeReferences: [Int64], maxReference: Int64, toOne: inout [StoreFileDecoder.PendingReference],
                      toMany: [StoreFileDecoder.PendingList], pool: inout [Int64]) throws {
        try nodes.withUnsafeMutableBufferPointer { nodes in
            var resolver = ReferenceResolver(file: file, plan: plan, nodes: nodes, nodeEntities: nodeEntities,
                                             nodeReferences: nodeReferences, writesValues: false)
            try resolver.buildTable(maxReference: maxReference)
            try resolver.resolveToOne(&toOne)
            try resolver.resolveToMany(toMany, pool: &pool)
            try resolver.checkInverses(toOne: toOne, toMany: toMany, pool: pool)
        }
    }

    // MARK: - References

    private mutating func buildTable(maxReference: Int64) throws {
        if maxReference <= Int64(nodes.count) * 4 + 1024 {
            dense = [Int32](repeating: -1, count: Int(maxReference) + 1)
        }
        for (index, reference) in nodeReferences.enumerated() {
            if let other = node(for: reference) {
                throw JSONStoreError.duplicateReference(file: file, entity: entityName(of: index), reference: reference,
                                                        otherEntity: entityName(of: other))
            }
            if dense.isEmpty { sparse[reference] = Int32(index) } else { dense[Int(reference)] = Int32(index) }
        }
    }

    @inline(__always)
    private func node(for reference: Int64) -> Int? {
        if !dense.isEmpty {
            guard reference >= 0, reference < Int64(dense.count) else { return nil }
            let index = dense[Int(reference)]
            return index < 0 ? nil : Int(index)
        }
        return sparse[reference].map(Int.init)
    }

    private func entityName(of node: Int) -> String { plan.entities[Int(nodeEntities[node])].name }

    private func property(_ node: Int, _ index: Int) -> PropertyPlan {
        plan.entities[Int(nodeEntities[node])].properties[index]
    }

    /// The node a reference names, checked against the relationship's destination.
    @inline(__always)
    private func target(_ reference: Int64, from source: Int, property index: Int) throws -> Int {
        guard let target = node(for: reference) else {
            throw JSONStoreError.danglingReference(file: file, entity: entityName(of: source), reference: nodeReferences[source],
                                                   property: property(source, index).name, target: reference)
        }
        let flat = flats[Int(nodeEntities[source])]
        guard flat.allowed[index * flat.entityCount + Int(nodeEntities[target])] else {
            let relationship = property(source, index)
            throw JSONStoreError.wrongDestination(file: file, entity: entityName(of: source), reference: nodeReferences[source],
                                                  property: relationship.name, target: reference,
                                                  targetEntity: entityName(of: target), expected: relationship.destinationName)
        }
        return target
    }

    /// Sets to-one values; on return each pending reference holds its target's node index.
    /// Many links are resolved in two halves on two threads (split between two nodes, so
    /// that each node is written by one); the error is the first in file order all the same.
    private func resolveToOne(_ pending: inout [StoreFileDecoder.PendingReference]) throws {
        let count = pending.count
        var middle = count / 2
        while middle > 0, middle < count, pending[middle].node == pending[middle - 1].node { middle += 1 }
        guard count >= Self.parallelLinks, middle < count else {
            try pending.withUnsafeMutableBufferPointer { try resolveToOne($0, 0..<count) }
            return
        }
        let split = middle
        try pending.withUnsafeMutableBufferPointer { buffer in
            let shared = UncheckedShare(buffer)
            let errors = Self.onTwoThreads { half -> Error? in
                do {
                    try resolveToOne(shared.value, half == 0 ? 0..<split : split..<count)
                    return nil
                } catch {
                    return error
                }
            }
            if let error = errors.0 ?? errors.1 { throw error }
        }
    }

    private func resolveToOne(_ pending: UnsafeMutableBufferPointer<StoreFileDecoder.PendingReference>, _ range: Range<Int>) throws {
        for index in range {
            let item = pending[index]
            let source = Int(item.node)
            let targetIndex = try target(item.target, from: source, property: Int(item.property))
            if writesValues { nodes[source].values[Int(item.property)] = .object(nodes[targetIndex].objectID) }
            pending[index].target = Int64(targetIndex)
        }
    }

    /// Below this many links, one thread resolves them: a second costs more than it saves.
    static let parallelLinks = 1 << 16

    /// Sets to-many values; on return the pool holds node indexes instead of references.
    /// Many links are resolved by two threads, each for the lists of its own nodes (those
    /// below a node that splits the links in about halves, and the others), so that each
    /// node is written by one thread whatever the order of the lists (a journal's replay
    /// leaves them out of node order); the error is the first in list order all the same.
    private func resolveToMany(_ lists: [StoreFileDecoder.PendingList], pool: inout [Int64]) throws {
        let split = pool.count >= Self.parallelLinks ? Self.splittingNode(lists, nodeCount: nodes.count) : nil
        try pool.withUnsafeMutableBufferPointer { pool in
            guard let split else {
                if let (_, error) = resolveToMany(lists, pool, sources: 0..<nodes.count) { throw error }
                return
            }
            let shared = UncheckedShare(pool)
            let errors = Self.onTwoThreads { half in
                resolveToMany(lists, shared.value, sources: half == 0 ? 0..<split : split..<nodes.count)
            }
            switch (errors.0, errors.1) {
            case (nil, nil): return
            case (let only?, nil), (nil, let only?): throw only.error
            case (let first?, let second?): throw first.list < second.list ? first.error : second.error
            }
        }
    }

    /// The node below which the lists hold about half the links (by 1,024 runs of nodes).
    private static func splittingNode(_ lists: [StoreFileDecoder.PendingList], nodeCount: Int) -> Int {
        let runs = 1_024
        var links = [Int](repeating: 0, count: runs)
        var total = 0
        for list in lists {
            links[Int(list.node) * runs / nodeCount] += list.count
            total += list.count
        }
        var sum = 0
        for run in 0..<runs {
            sum += links[run]
            if sum * 2 >= total { return (run + 1) * nodeCount / runs }
        }
        return nodeCount
    }

    /// Resolves the lists of the nodes in `sources`, in list order, up to the first error:
    /// nil, or that error and the index of its list.
    private func resolveToMany(_ lists: [StoreFileDecoder.PendingList], _ pool: UnsafeMutableBufferPointer<Int64>,
                               sources: Range<Int>) -> (list: Int, error: Error)? {
        var marks: [Int32] = []
        for (listIndex, list) in lists.enumerated() where sources.contains(Int(list.node)) {
            let source = Int(list.node)
            var ids: [ObjectID] = []
            if writesValues { ids.reserveCapacity(list.count) }
            if list.count > 1, marks.isEmpty { marks = [Int32](repeating: -1, count: nodes.count) }
            for slot in list.start..<(list.start + list.count) {
                let targetIndex: Int
                do {
                    targetIndex = try target(pool[slot], from: source, property: Int(list.property))
                } catch {
                    return (listIndex, error)
                }
                if list.count > 1 {
                    if marks[targetIndex] == Int32(truncatingIfNeeded: listIndex) {
                        return (listIndex, JSONStoreError.invalidObject(
                            file: file, entity: entityName(of: source), reference: nodeReferences[source],
                            reason: "property \"\(property(source, Int(list.property)).name)\" lists \(describe(targetIndex)) twice"))
                    }
                    marks[targetIndex] = Int32(truncatingIfNeeded: listIndex)
                }
                if writesValues { ids.append(nodes[targetIndex].objectID) }
                pool[slot] = Int64(targetIndex)
            }
            if writesValues { nodes[source].values[Int(list.property)] = .objects(ids) }
        }
        return nil
    }

    /// Runs `work(0)` and `work(1)` on two threads and returns their results in that order.
    private static func onTwoThreads<Result>(_ work: (Int) -> Result?) -> (Result?, Result?) {
        let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: 2)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        withoutActuallyEscaping(work) { work in
            let shared = UncheckedShare((work: work, results: results))
            DispatchQueue.concurrentPerform(iterations: 2) { half in
                shared.value.results[half] = shared.value.work(half)
            }
        }
        return (results[0], results[1])
    }

    private func describe(_ node: Int) -> String { "\(entityName(of: node)) \(nodeReferences[node])" }

    /// "null", or the reference the value of a to-one relationship points to.
    private func describeToOne(_ value: Value) -> String {
        if case .object(let id) = value { return id.referenceObject.description }
        return "null"
    }

    private func mismatch(_ node: Int, _ index: Int, _ detail: String) -> JSONStoreError {
        .inverseMismatch(file: file, entity: entityName(of: node), reference: nodeReferences[node],
                         property: property(node, index).name, detail: detail)
    }

    // MARK: - Inverses

    private func checkInverses(toOne: [StoreFileDecoder.PendingReference], toMany: [StoreFileDecoder.PendingList],
                               pool: [Int64]) throws {
        // The to-one links of each node are contiguous in `toOne` (in node order): where they start.
        var starts = [Int32](repeating: 0, count: nodes.count + 1)
        for item in toOne { starts[Int(item.node) + 1] += 1 }
        for index in 0..<nodes.count { starts[index + 1] += starts[index] }
        // To-one relationships whose inverse is to-many: how many objects point at each target.
        // (The count is read once: a default that reads `nodes` would copy the whole resolver
        // into its closure for every link, 0.2 µs each.)
        var counts: [Int: [Int32]] = [:]
        let nodeCount = nodes.count
        for item in toOne {
            let source = Int(item.node), index = Int(item.property), targetIndex = Int(item.target)
            let flat = flats[Int(nodeEntities[source])]
            let inverse = Int(flat.inverses[index])
            guard inverse >= 0 else { continue }
            if flat.inverseIsToMany[index] {
                counts[inverse, default: [Int32](repeating: 0, count: nodeCount)][targetIndex] += 1
            } else if let back = toOneTarget(of: targetIndex, property: inverse, in: toOne, starts: starts), back == source {
                continue
            } else {
                let back = nodes[targetIndex].values[inverse]
                throw mismatch(source, index, "refers to \(describe(targetIndex)), whose \"\(property(targetIndex, inverse).name)\" is \(describeToOne(back))")
            }
        }
        var forward: [Int: [UInt64]] = [:], backward: [Int: [UInt64]] = [:]
        for list in toMany {
            let source = Int(list.node), index = Int(list.property)
            let flat = flats[Int(nodeEntities[source])]
            let inverse = Int(flat.inverses[index])
            guard inverse >= 0 else { continue }
            if !flat.inverseIsToMany[index] {
                for slot in list.start..<(list.start + list.count) {
                    let targetIndex = Int(pool[slot])
                    if toOneTarget(of: targetIndex, property: inverse, in: toOne, starts: starts) != source {
                        let back = nodes[targetIndex].values[inverse]
                        throw mismatch(source, index, "lists \(describe(targetIndex)), whose \"\(property(targetIndex, inverse).name)\" is \(describeToOne(back))")
                    }
                }
                continue
            }
            let entityPlan = plan.entities[Int(nodeEntities[source])]
            let id = entityPlan.relationshipIDs[index], inverseID = entityPlan.inverseIDs[index]
            for slot in list.start..<(list.start + list.count) {
                let targetIndex = UInt64(pool[slot])
                if id <= inverseID { forward[id, default: []].append(UInt64(source) << 32 | targetIndex) }
                if inverseID <= id { backward[inverseID, default: []].append(targetIndex << 32 | UInt64(source)) }
            }
        }
        try checkCounts(counts, toOne: toOne)
        for id in Set(forward.keys).union(backward.keys) {
            try compare(forward[id] ?? [], backward[id] ?? [])
        }
    }

    /// The node a to-one relationship of `node` points to (nil for null), from the resolved links.
    @inline(__always)
    private func toOneTarget(of node: Int, property: Int, in toOne: [StoreFileDecoder.PendingReference], starts: [Int32]) -> Int? {
        for slot in Int(starts[node])..<Int(starts[node + 1]) where toOne[slot].property == Int32(property) {
            return Int(toOne[slot].target)
        }
        return nil
    }

    /// Every object a to-many side lists was checked to point back; an object pointing at a
    /// target that lists fewer objects than point at it is missing from that list.
    private func checkCounts(_ counts: [Int: [Int32]], toOne: [StoreFileDecoder.PendingReference]) throws {
        for (inverse, perTarget) in counts {
            for (targetIndex, count) in perTarget.enumerated() where count > 0 {
                guard case .objects(let listed) = nodes[targetIndex].values[inverse], listed.count < count else { continue }
                let members = Set(listed)
                for item in toOne where Int(item.target) == targetIndex {
                    let source = Int(item.node), index = Int(item.property)
                    guard property(source, index).inverseIndex == inverse, !members.contains(nodes[source].objectID) else { continue }
                    throw mismatch(source, index, "refers to \(describe(targetIndex)), whose \"\(property(targetIndex, inverse).name)\" does not list \(nodeReferences[source])")
                }
            }
        }
    }

    /// The links of a many-to-many relationship as each side states them: (a, b) for "a
    /// lists b" on one side and "b lists a" on the other. They must be the same sets.
    private func compare(_ forward: [UInt64], _ backward: [UInt64]) throws {
        let a = forward.sorted(), b = backward.sorted()
        if a == b { return }
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] { i += 1; j += 1; continue }
            let onlyForward = j >= b.count || (i < a.count && a[i] < b[j])
            let link = onlyForward ? a[i] : b[j]
            let first = Int(link >> 32), second = Int(link & 0xFFFF_FFFF)
            let (node, other) = onlyForward ? (first, second) : (second, first)
            let index = listIndex(of: node, listing: other)
            let inverse = property(node, index).inverseIndex ?? 0
            throw mismatch(node, index, "lists \(describe(other)), whose \"\(property(other, inverse).name)\" does not list \(nodeReferences[node])")
        }
    }

    /// The property of `node` whose to-many value lists `other` (and has a to-many inverse).
    private func listIndex(of node: Int, listing other: Int) -> Int {
        let id = nodes[other].objectID
        for (index, relationship) in plan.entities[Int(nodeEntities[node])].properties.enumerated()
        where relationship.inverseIsToMany && relationship.isToMany {
            if case .objects(let ids) = nodes[node].values[index], ids.contains(id) { return index }
        }
        return 0
    }
}

/// What the two threads of the resolver share. Safe: each thread writes only its own
/// result slot and its own links (its half of the to-one links, or the pool slots of its
/// own nodes' lists) and its own nodes' values; the rest is only read, and the results are
/// read once both threads are done.
private struct UncheckedShare<Shared>: @unchecked Sendable {
    let value: Shared

    init(_ value: Shared) {
        self.value = value
    }
}
