import Foundation

/// The first `k` records of a sort, without sorting all of them: a bounded heap of the `k`
/// best seen so far (O(n log k) instead of O(n log n)), for a sorted fetch with a small
/// ``FetchRequest/fetchLimit``.
///
/// Records compare as ``RecordSorter`` compares them, ties by their position in the input,
/// so the answer is the first `k` of the stable full sort.
struct TopKSelector<Record: PredicateRecord> {
    private struct Key {
        let indexes: [Int]
        let ascending: Bool
        let comparison: SortDescriptor.StringComparison
    }

    private let keys: [Key]
    private let resolve: (ObjectID) throws -> Record?

    init(_ descriptors: [SortDescriptor], entity: EntityDescription, resolve: @escaping (ObjectID) throws -> Record?) throws {
        keys = try descriptors.map { descriptor in
            var indexes: [Int] = []
            var current: EntityDescription? = entity
            for component in descriptor.keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
                guard let owner = current, let index = owner.index(ofProperty: component) else {
                    throw GraphError.unknownKey(entity: current?.name ?? "(attribute value)", key: component)
                }
                if case .relationship(let r) = owner.properties[index], r.isToMany {
                    throw GraphError.wrongKind(entity: owner.name, key: component, expected: "an attribute or to-one relationship to sort by")
                }
                indexes.append(index)
                current = owner.destination(ofPropertyAt: index)
            }
            return Key(indexes: indexes, ascending: descriptor.ascending, comparison: descriptor.comparison)
        }
        self.resolve = resolve
    }

    /// Whether selecting `k` of `count` records pays off over sorting them all.
    static func isWorthIt(k: Int, of count: Int) -> Bool {
        k > 0 && count > 64 && k <= count / 8
    }

    /// The first `k` records in sort order.
    func first(_ k: Int, of records: [Record]) throws -> [Record] {
        guard k > 0 else { return [] }
        var columns: [[Value]] = []
        for key in keys {
            var values: [Value] = []
            values.reserveCapacity(records.count)
            for record in records {
                var value = try value(at: key.indexes, of: record)
                if key.comparison == .caseInsensitive, case .string(let s) = value {
                    value = .string(StringFolding.fold(s, .caseInsensitive))
                }
                values.append(value)
            }
            columns.append(values)
        }
        /// Whether record `a` goes before record `b`.
        func precedes(_ a: Int, _ b: Int) -> Bool {
            for (column, key) in zip(columns, keys) {
                let result = RecordSorter<Record>.order(column[a], column[b], key.comparison)
                if result == .orderedSame { continue }
                return (result == .orderedAscending) == key.ascending
            }
            return a < b
        }
        // A max-heap of the best k so far: the worst of them on top.
        var heap: [Int] = []
        heap.reserveCapacity(k)
        for i in records.indices {
            if heap.count < k {
                heap.append(i)
                var child = heap.count - 1
                while child > 0 {
                    let parent = (child - 1) / 2
                    guard precedes(heap[parent], heap[child]) else { break }
                    heap.swapAt(parent, child)
                    child = parent
                }
            } else if precedes(i, heap[0]) {
                heap[0] = i
                var parent = 0
                while true {
                    let left = 2 * parent + 1, right = left + 1
                    var largest = parent
                    if left < heap.count, precedes(heap[largest], heap[left]) { largest = left }
                    if right < heap.count, precedes(heap[largest], heap[right]) { largest = right }
                    if largest == parent { break }
                    heap.swapAt(parent, largest)
                    parent = largest
                }
            }
        }
        heap.sort(by: precedes)
        return heap.map { records[$0] }
    }

    private func value(at indexes: [Int], of record: Record) throws -> Value {
        var current = record
        for (step, index) in indexes.enumerated() {
            let value = try current.predicateValue(at: index)
            if step == indexes.count - 1 { return value }
            guard case .object(let id) = value, let next = try resolve(id) else { return .null }
            current = next
        }
        return .null
    }
}
