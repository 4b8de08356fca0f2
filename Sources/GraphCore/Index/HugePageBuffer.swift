import Foundation

/// Memory for the large temporary arrays of an index build (an item per node, and the radix
/// sort's second copy of them): mapped on its own and offered huge pages (`MADV_HUGEPAGE`,
/// 2 MiB), so that filling it takes a page fault per 2 MiB instead of one per 4 KiB. The faults
/// of two such arrays were about a fifth of the build of an index of a million nodes. Where
/// the kernel gives no huge pages, the mapping is made of small pages as any other; a small
/// buffer, or one that cannot be mapped, comes from the allocator.
///
/// The elements are not initialized; the caller initializes those it uses, and deallocates.
struct HugePageBuffer<Element: BitwiseCopyable> {
    let elements: UnsafeMutableBufferPointer<Element>
    /// The whole mapping (larger than `elements`, which start at a huge-page boundary); nil
    /// when `elements` came from the allocator.
    private let mapping: UnsafeMutableRawBufferPointer?

    static var hugePageBytes: Int { 2 << 20 }

    init(capacity: Int) {
        let (bytes, overflow) = max(0, capacity).multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        let huge = Self.hugePageBytes
        guard !overflow, bytes >= 4 * huge, bytes <= Int.max - huge,
              let mapped = mmap(nil, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              mapped != MAP_FAILED
        else {
            elements = .allocate(capacity: max(0, capacity))
            mapping = nil
            return
        }
        let offset = (huge - Int(bitPattern: UInt(bitPattern: mapped) % UInt(bitPattern: huge))) % huge
        let start = mapped + offset
        _ = madvise(start, bytes, MADV_HUGEPAGE)
        elements = UnsafeMutableBufferPointer(start: start.bindMemory(to: Element.self, capacity: capacity), count: capacity)
        mapping = UnsafeMutableRawBufferPointer(start: mapped, count: bytes + huge)
    }

    func deallocate() {
        if let mapping, let base = mapping.baseAddress {
            munmap(base, mapping.count)
        } else {
            elements.deallocate()
        }
    }
}
