import Foundation
import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads a store file into a ``StoreFileDecoder``: the whole file into memory (read in
/// blocks on every core), then, for a large file, its objects in ranges parsed on every core
/// (``StoreFileRanges``); a small one on the calling thread alone. The result, and every
/// error with its byte offset, line and column, are those of a parse on one thread.
enum StoreFileReader {
    /// How much of the file is read at a time by ``readChunks(_:path:_:)``.
    static let chunkSize = 1 << 20
    /// Files smaller than this are parsed on the calling thread alone.
    static let parallelThreshold = 4 << 20

    /// Reads the file into `decoder`; `inRanges: false` parses it on the calling thread alone,
    /// whatever its size (to compare the two in tests).
    static func read(_ descriptor: Int32, size: Int, path: String, into decoder: StoreFileDecoder,
                     inRanges: Bool = true) throws {
        let file = try FileBuffer(descriptor, size: size, path: path)
        decoder.trace.mark("read")
        defer { file.deallocate() }
        do {
            let bytes = UnsafeRawBufferPointer(file.bytes)
            let parsed = inRanges && bytes.count >= parallelThreshold ? try StoreFileRanges(file: file, decoder: decoder).parse() : false
            if !parsed {
                let parser = JSONEventParser(handler: decoder)
                try parser.parse(bytes)
                try parser.finish()
            }
        } catch let error as JSONError {
            throw JSONStoreError(error, file: path)
        }
    }

    /// Calls `body` with each chunk of the file.
    static func readChunks(_ descriptor: Int32, path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw JSONStoreError.io(path: path, operation: "read", errno: errno)
            }
            if count == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}

/// A whole file in memory, read from its descriptor.
///
/// `size` (from `fstat`) is read in blocks on as many threads as there are cores; when the
/// file turns out to have another size (it changed meanwhile), it is read again from its
/// start, on one thread, to its end.
struct FileBuffer {
    private(set) var bytes: UnsafeMutableRawBufferPointer
    let descriptor: Int32
    let path: String

    /// The size of the blocks read in parallel.
    static let blockSize = 8 << 20

    init(_ descriptor: Int32, size: Int, path: String) throws {
        self.descriptor = descriptor
        self.path = path
        bytes = try Self.allocate(size, path: path)
        do {
            if try !readBlocks(size) { try readToEnd() }
        } catch {
            deallocate()
            throw error
        }
    }

    func deallocate() { free(bytes.baseAddress) }

    /// Memory for `size` bytes in huge pages where the system gives them (2 MiB aligned and
    /// advised): a few hundred page faults for a large file instead of one per 4 KiB.
    private static func allocate(_ size: Int, path: String) throws -> UnsafeMutableRawBufferPointer {
        let huge = 2 << 20
        let rounded = (max(size, 1) + huge - 1) / huge * huge
        guard let base = aligned_alloc(huge, rounded) else {
            throw JSONStoreError.io(path: path, operation: "read (allocating \(rounded) bytes)", errno: ENOMEM)
        }
        if rounded >= huge * 2 { _ = madvise(base, rounded, MADV_HUGEPAGE) }
        return UnsafeMutableRawBufferPointer(start: base, count: rounded)
    }

    /// Reads `size` bytes in blocks; false when the file holds fewer or more.
    private mutating func readBlocks(_ size: Int) throws -> Bool {
        let blocks = (size + Self.blockSize - 1) / Self.blockSize
        let outcome = BlockOutcome(count: blocks)
        let target = outcome.target(bytes), descriptor = self.descriptor
        DispatchQueue.concurrentPerform(iterations: blocks) { block in
            let start = block * Self.blockSize
            let end = min(start + Self.blockSize, size)
            outcome.set(block, Self.pread(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: target.bytes[start..<end]), at: start))
        }
        if let error = outcome.firstError { throw JSONStoreError.io(path: path, operation: "read", errno: error) }
        guard outcome.allComplete else { return false }
        var probe: UInt8 = 0
        let more = withUnsafeMutableBytes(of: &probe) { Self.pread(descriptor, into: $0, at: size) }
        guard case .complete = more else { bytes = UnsafeMutableRawBufferPointer(rebasing: bytes[0..<size]); return true }
        return false
    }

    /// Reads the file from its start to its end, growing the buffer as needed.
    private mutating func readToEnd() throws {
        var count = 0
        while true {
            if count == bytes.count {
                let larger = try Self.allocate(bytes.count * 2, path: path)
                larger.copyMemory(from: UnsafeRawBufferPointer(bytes))
                deallocate()
                bytes = larger
            }
            guard let base = bytes.baseAddress else { break }
            let read = Glibc.pread(descriptor, base + count, bytes.count - count, off_t(count))
            if read < 0 {
                if errno == EINTR { continue }
                throw JSONStoreError.io(path: path, operation: "read", errno: errno)
            }
            if read == 0 { break }
            count += read
        }
        bytes = UnsafeMutableRawBufferPointer(rebasing: bytes[0..<count])
    }

    enum ReadResult { case complete, short, failed(Int32) }

    /// Fills `buffer` from `offset`.
    static func pread(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> ReadResult {
        guard let base = buffer.baseAddress else { return .complete }
        var done = 0
        while done < buffer.count {
            let read = Glibc.pread(descriptor, base + done, buffer.count - done, off_t(offset + done))
            if read < 0 {
                if errno == EINTR { continue }
                return .failed(errno)
            }
            if read == 0 { return .short }
            done += read
        }
        return .complete
    }

    /// The buffer, handed to the threads that read blocks into it.
    struct Target: @unchecked Sendable {
        // Sendable: each thread writes only its own block of the buffer.
        let bytes: UnsafeMutableRawBufferPointer
    }

    /// What each block's read gave.
    final class BlockOutcome: @unchecked Sendable {
        // Sendable: each thread writes only its own block's slot, and the slots are read after
        // `concurrentPerform` returned.
        private let slots: UnsafeMutableBufferPointer<Int32>

        init(count: Int) {
            slots = .allocate(capacity: max(count, 1))
            slots.initialize(repeating: 0)
        }

        deinit { slots.deallocate() }

        func target(_ bytes: UnsafeMutableRawBufferPointer) -> Target { Target(bytes: bytes) }

        /// 0: complete, -1: short, else an errno.
        func set(_ block: Int, _ result: ReadResult) {
            switch result {
            case .complete: slots[block] = 0
            case .short: slots[block] = -1
            case .failed(let error): slots[block] = error
            }
        }

        var firstError: Int32? { slots.first { $0 > 0 } }
        var allComplete: Bool { slots.allSatisfy { $0 == 0 } }
    }
}
