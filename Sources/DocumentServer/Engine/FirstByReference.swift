import DocumentProtocol
import GraphCore

/// The first `count` of the objects offered one by one, in reference order (the order of an
/// unsorted fetch's answer), without holding or sorting the others: a bounded max-heap of the
/// best so far, O(n log count) for n offered. A page of an unsorted fetch over a million
/// objects then costs a scan, not a sort of the million.
struct FirstByReference {
    private let count: Int
    /// A max-heap: the last in reference order of those kept is on top.
    private var heap: [ObjectSnapshot] = []

    init(_ count: Int) {
        self.count = max(0, count)
        heap.reserveCapacity(min(self.count, 1 << 16))
    }

    /// Keeps `snapshot` when it is among the first `count` offered so far.
    mutating func offer(_ snapshot: ObjectSnapshot) {
        guard count > 0 else { return }
        if heap.count < count {
            heap.append(snapshot)
            siftUp(heap.count - 1)
        } else if let top = heap.first, Self.before(snapshot, top) {
            heap[0] = snapshot
            siftDown(0)
        }
    }

    /// The kept objects in reference order.
    func sorted() -> [ObjectSnapshot] {
        heap.sorted(by: Self.before)
    }

    private static func before(_ a: ObjectSnapshot, _ b: ObjectSnapshot) -> Bool {
        WireObjectEncoder.referenceOrder(a.objectID, b.objectID)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[parent], heap[child]) else { return }
            heap.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var largest = left
            let right = left + 1
            if right < heap.count, Self.before(heap[left], heap[right]) { largest = right }
            guard Self.before(heap[parent], heap[largest]) else { return }
            heap.swapAt(parent, largest)
            parent = largest
        }
    }
}
