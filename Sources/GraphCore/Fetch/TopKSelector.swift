import Foundation

/// The first `k` records of a sort, without sorting all of them: a bounded heap of the `k`
/// best seen so far (O(n log k) instead of O(n log n)), for a sorted fetch with a small
/// ``FetchRequest/fetchLimit``.
///
/// Records compare as ``RecordSorter`` compares them, ties by their position in the input,
/// so the answer is the first `k` of the stable full sort.
struct TopKSelector<Record: PredicateRecord> {
    private let sorter: RecordSorter<Record>

    init(_ descriptors: [SortDescriptor], entity: EntityDescription, resolve: @escaping (ObjectID) throws -> Record?) throws {
        sorter = try RecordSorter(descriptors, entity: entity, resolve: resolve)
    }

    /// Whether selecting `k` of `count` records pays off over sorting them all.
    static func isWorthIt(k: Int, of count: Int) -> Bool {
        k > 0 && count > 64 && k <= count / 8
    }

    /// The first `k` records in sort order.
    func first(_ k: Int, of records: [Record]) throws -> [Record] {
        guard k > 0 else { return [] }
        let columns = try sorter.values(of: records)
        let keys = sorter.keys
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
}
