import Foundation
import JSONCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads a store file in chunks into a ``StoreFileDecoder``.
///
/// A large file is read on two threads: one reads and parses (yajl, UTF-8 checks) and
/// writes the events onto tapes, the calling thread replays them into the decoder, which
/// builds the objects. Errors come out as they would on one thread: the events before a
/// syntax error are decoded first, so the first fault in the file is the one reported.
enum StoreFileReader {
    /// How much of the file is read at a time.
    static let chunkSize = 1 << 20
    /// Files smaller than this are read on the calling thread alone.
    static let pipelineThreshold = 4 << 20

    static func read(_ descriptor: Int32, size: Int, path: String, into decoder: StoreFileDecoder) throws {
        do {
            if size < pipelineThreshold {
                let parser = JSONEventParser(handler: decoder)
                try readChunks(descriptor, path: path) { try parser.parse($0) }
                try parser.finish()
            } else {
                try readPipelined(descriptor, path: path, into: decoder)
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

    private static func readPipelined(_ descriptor: Int32, path: String, into decoder: StoreFileDecoder) throws {
        let channel = TapeChannel()
        let producer = ParsingThread(descriptor: descriptor, path: path, channel: channel)
        let thread = Thread { producer.run() }
        thread.name = "JSONAtomicStore parser"
        thread.start()
        var offset = 0
        do {
            while let tape = channel.receive() {
                try tape.replay(into: decoder, offset: &offset)
                channel.recycle(tape)
            }
            if let error = channel.parseError { throw error }
        } catch let shape as JSONShapeError {
            channel.cancelAndWait()
            let place = location(of: offset, in: descriptor)
            throw JSONStoreError.notAStoreFile(
                file: path, reason: "\(shape.reason) (at byte \(place.offset), line \(place.line), column \(place.column))")
        } catch let duplicate as JSONDuplicateKeyError {
            channel.cancelAndWait()
            let place = location(of: offset, in: descriptor)
            throw JSONStoreError.invalidJSON(file: path, offset: place.offset, line: place.line, column: place.column,
                                             reason: duplicate.reason)
        } catch {
            channel.cancelAndWait()
            throw error
        }
    }

    /// The line and column of a byte offset, counted by reading the file again (errors only).
    static func location(of offset: Int, in descriptor: Int32) -> (offset: Int, line: Int, column: Int) {
        var line = 1, lineStart = 0, position = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while position < offset {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, min($0.count, offset - position), off_t(position)) }
            if count <= 0 { break }
            for index in 0..<count where buffer[index] == 0x0A {
                line += 1
                lineStart = position + index + 1
            }
            position += count
        }
        return (offset, line, offset - lineStart + 1)
    }
}

/// The parsing side of a two-thread load.
final class ParsingThread: @unchecked Sendable {
    // Sendable: made by the loading thread, then used only by the parsing thread until it
    // calls `channel.finish`; the loading thread waits for that before it returns (and
    // before it closes the descriptor).
    let descriptor: Int32
    let path: String
    let channel: TapeChannel

    init(descriptor: Int32, path: String, channel: TapeChannel) {
        self.descriptor = descriptor
        self.path = path
        self.channel = channel
    }

    func run() {
        let recorder = TapeRecorder(channel: channel)
        let parser = JSONEventParser(handler: recorder)
        recorder.probe = parser.offsetProbe
        do {
            try StoreFileReader.readChunks(descriptor, path: path) { try parser.parse($0) }
            try parser.finish()
            try recorder.flush()
            channel.finish(nil)
        } catch {
            // The events before the error are decoded first: a fault earlier in the file wins.
            try? recorder.flush()
            channel.finish(error)
        }
    }
}
