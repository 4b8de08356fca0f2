import Foundation
import JSONCore

/// JSON events written down in a buffer by one thread and read back by another, so that a
/// load can parse (yajl) on one core while it builds objects on the other.
///
/// Each event is a kind byte, the byte offset of the input just after its token (8 bytes),
/// and for keys, strings and numbers a 4-byte length and the bytes; for booleans the kind
/// says the value.
final class EventTape {
    enum Kind: UInt8 {
        case null, `false`, `true`, number, string, startObject, key, endObject, startArray, endArray
    }

    /// The usual size of a tape; an event larger than that gets a tape of its own size.
    static let standardCapacity = 1 << 20

    let capacity: Int
    private let buffer: UnsafeMutableRawPointer
    private(set) var count = 0

    init(capacity: Int = EventTape.standardCapacity) {
        self.capacity = capacity
        buffer = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// The room an event with `length` bytes of text takes.
    @inline(__always)
    static func size(ofText length: Int) -> Int { 1 + 8 + 4 + length }

    @inline(__always)
    func hasRoom(for size: Int) -> Bool { count + size <= capacity }

    @inline(__always)
    func append(_ kind: Kind, offset: Int) {
        buffer.storeBytes(of: kind.rawValue, toByteOffset: count, as: UInt8.self)
        buffer.storeBytes(of: Int64(offset), toByteOffset: count + 1, as: Int64.self)
        count += 9
    }

    @inline(__always)
    func append(_ kind: Kind, offset: Int, text: UnsafeRawBufferPointer) {
        append(kind, offset: offset)
        buffer.storeBytes(of: UInt32(text.count), toByteOffset: count, as: UInt32.self)
        if let base = text.baseAddress, !text.isEmpty { (buffer + count + 4).copyMemory(from: base, byteCount: text.count) }
        count += 4 + text.count
    }

    /// Empties the tape for reuse.
    func clear() { count = 0 }

    /// Calls `handler` with every event in order; `offset` is set to the event's input offset
    /// before each call (for error messages).
    func replay(into handler: StoreFileDecoder, offset: inout Int) throws {
        var position = 0
        while position < count {
            let kind = Kind(rawValue: buffer.load(fromByteOffset: position, as: UInt8.self)) ?? .null
            offset = Int(buffer.loadUnaligned(fromByteOffset: position + 1, as: Int64.self))
            position += 9
            switch kind {
            case .null: try handler.null()
            case .false: try handler.bool(false)
            case .true: try handler.bool(true)
            case .startObject: try handler.startObject()
            case .endObject: try handler.endObject()
            case .startArray: try handler.startArray()
            case .endArray: try handler.endArray()
            case .number, .string, .key:
                let length = Int(buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self))
                let text = UnsafeRawBufferPointer(start: buffer + position + 4, count: length)
                position += 4 + length
                switch kind {
                case .number: try handler.number(text)
                case .string: try handler.string(text)
                default: try handler.key(text)
                }
            }
        }
    }
}

/// A handler that writes every event onto tapes and hands full tapes to a channel.
final class TapeRecorder: JSONEventHandler {
    private let channel: TapeChannel
    /// The tape being written. Exclusivity checks are off: one thread uses the recorder.
    @exclusivity(unchecked) private var tape: EventTape
    /// Set right after the parser is made; it gives the offset of each event.
    @exclusivity(unchecked) var probe: JSONEventParser.OffsetProbe?

    init(channel: TapeChannel) {
        self.channel = channel
        tape = EventTape()
    }

    @inline(__always)
    private var offset: Int { probe?.offset ?? 0 }

    @inline(__always)
    private func record(_ kind: EventTape.Kind) throws {
        if !tape.hasRoom(for: 9) { try flush(needing: 9) }
        tape.append(kind, offset: offset)
    }

    @inline(__always)
    private func record(_ kind: EventTape.Kind, _ text: UnsafeRawBufferPointer) throws {
        let size = EventTape.size(ofText: text.count)
        if !tape.hasRoom(for: size) { try flush(needing: size) }
        tape.append(kind, offset: offset, text: text)
    }

    /// Sends the current tape (if it holds anything) and starts another with room for `size` bytes.
    func flush(needing size: Int = 0) throws {
        if tape.count > 0 { try channel.send(tape) }
        tape = channel.freeTape(capacity: max(size, EventTape.standardCapacity))
    }

    func null() throws { try record(.null) }
    func bool(_ value: Bool) throws { try record(value ? .true : .false) }
    func number(_ text: UnsafeRawBufferPointer) throws { try record(.number, text) }
    func string(_ bytes: UnsafeRawBufferPointer) throws { try record(.string, bytes) }
    func startObject() throws { try record(.startObject) }
    func key(_ bytes: UnsafeRawBufferPointer) throws { try record(.key, bytes) }
    func endObject() throws { try record(.endObject) }
    func startArray() throws { try record(.startArray) }
    func endArray() throws { try record(.endArray) }
}

/// Full tapes from the parsing thread to the building thread, at most `limit` at a time, and
/// empty tapes back; then the parse's outcome.
final class TapeChannel: @unchecked Sendable {
    // Sendable: every mutable field is read and written under `condition`, and a tape
    // belongs to one thread at a time (the sender gives it up in `send`).
    private let condition = NSCondition()
    private var full: [EventTape] = []
    private var free: [EventTape] = []
    private var finished = false
    private var outcome: Error?
    private var cancelled = false
    private var producerDone = false
    private let limit = 4

    struct Cancelled: Error {}

    /// Waits while `limit` tapes are waiting; throws ``Cancelled`` once the reader gave up.
    func send(_ tape: EventTape) throws {
        condition.lock()
        defer { condition.unlock() }
        while full.count >= limit && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        full.append(tape)
        condition.broadcast()
    }

    /// An emptied tape to reuse, or a new one.
    func freeTape(capacity: Int) -> EventTape {
        condition.lock()
        defer { condition.unlock() }
        if capacity <= EventTape.standardCapacity, let tape = free.popLast() { return tape }
        return EventTape(capacity: capacity)
    }

    /// The parse ended, with `error` or without.
    func finish(_ error: Error?) {
        condition.lock()
        finished = true
        outcome = error
        producerDone = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next full tape; nil at the end (then `outcome` says how the parse ended).
    func receive() -> EventTape? {
        condition.lock()
        defer { condition.unlock() }
        while full.isEmpty && !finished { condition.wait() }
        if full.isEmpty { return nil }
        condition.broadcast()
        return full.removeFirst()
    }

    /// Gives a replayed tape back for reuse.
    func recycle(_ tape: EventTape) {
        tape.clear()
        condition.lock()
        if tape.capacity == EventTape.standardCapacity, free.count < limit + 2 { free.append(tape) }
        condition.unlock()
    }

    /// How the parse ended, once `receive()` returned nil.
    var parseError: Error? {
        condition.lock()
        defer { condition.unlock() }
        return outcome
    }

    /// Stops the sender (the reader failed) and waits until the parsing thread is done.
    func cancelAndWait() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while !producerDone { condition.wait() }
        condition.unlock()
    }
}
