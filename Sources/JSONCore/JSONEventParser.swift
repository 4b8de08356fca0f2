import CYajl
import Foundation

/// A streaming JSON parser: yajl's callback parser, configured strictly, turning a JSON text
/// into events for a ``JSONEventHandler``, with no tree in between.
///
/// Strict means RFC 8259 and nothing more: comments are refused, strings must be valid
/// UTF-8 (overlong forms, surrogates and code points past U+10FFFF included), exactly one
/// top-level value, nothing but whitespace (space, tab, line feed, carriage return) after
/// it (a string left open at the end of the input included: yajl alone lets that pass), and
/// a NUL byte anywhere is an error (not the end of the input). A key given twice in one
/// object is for the handler to refuse, with ``JSONDuplicateKeyError``, which the parser
/// reports at its place: ``JSONValue`` and the store file reader do. Errors are ``JSONError/invalidJSON(offset:line:column:reason:)``
/// with the byte offset, line and column.
///
/// Feed the text in chunks of any size, then call ``finish()``:
///
/// ```swift
/// let parser = JSONEventParser(handler: JSONSyntaxChecker())
/// try data.withUnsafeBytes { try parser.parse($0) }
/// try parser.finish()
/// ```
///
/// Not `Sendable`: a parser and its handler belong to the thread that feeds them.
public final class JSONEventParser {
    private let box: CallbackBox
    private let callbacks: UnsafeMutablePointer<yajl_callbacks>
    private let handle: yajl_handle
    /// The offset of the chunk being parsed (or of the next one) in the whole input, kept in
    /// plain memory so that an ``OffsetProbe`` can read it.
    private let chunkStartStorage: UnsafeMutablePointer<Int> = {
        let pointer = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        pointer.initialize(to: 0)
        return pointer
    }()
    private var chunkStart: Int {
        get { chunkStartStorage.pointee }
        set { chunkStartStorage.pointee = newValue }
    }
    /// Newlines before `chunkStart`, and the offset just after the last of them.
    private var newlines = 0
    private var lineStart = 0
    private var currentChunk: UnsafeRawBufferPointer?
    private var failure: JSONError?
    private var finished = false
    private var surrogates = SurrogateEscapeScanner()

    /// A parser that sends events to `handler`.
    public init(handler: any JSONEventHandler) {
        box = CallbackBox(handler: handler)
        callbacks = .allocate(capacity: 1)
        callbacks.initialize(to: Self.makeCallbacks())
        // yajl_alloc only fails when malloc does; yajl keeps the callbacks pointer, so it is
        // ours to free in deinit.
        handle = yajl_alloc(callbacks, nil, Unmanaged.passUnretained(box).toOpaque())
        box.probe = OffsetProbe(handle: handle, chunkStart: chunkStartStorage)
        _ = cyajl_config_bool(handle, yajl_allow_comments, 0)
        _ = cyajl_config_bool(handle, yajl_dont_validate_strings, 0)
        _ = cyajl_config_bool(handle, yajl_allow_trailing_garbage, 0)
        _ = cyajl_config_bool(handle, yajl_allow_multiple_values, 0)
        _ = cyajl_config_bool(handle, yajl_allow_partial_values, 0)
    }

    deinit {
        yajl_free(handle)
        callbacks.deallocate()
        chunkStartStorage.deallocate()
    }

    /// Reads the offset just after the token of the event being handled, without touching
    /// the parser object (no reference counting); valid while the parser lives.
    package struct OffsetProbe {
        fileprivate let handle: yajl_handle
        fileprivate let chunkStart: UnsafeMutablePointer<Int>

        /// The offset; meaningful only inside an event callback.
        @inline(__always)
        package var offset: Int { chunkStart.pointee + yajl_get_bytes_consumed(handle) }
    }

    package var offsetProbe: OffsetProbe { OffsetProbe(handle: handle, chunkStart: chunkStartStorage) }

    /// The number of bytes fed so far.
    public var bytesParsed: Int { chunkStart }

    /// Parses the next chunk of the input. After an error, every call throws it again.
    public func parse(_ chunk: UnsafeRawBufferPointer) throws {
        if let failure { throw failure }
        guard let base = chunk.baseAddress, !chunk.isEmpty else { return }
        // yajl ends nothing at a NUL byte but takes vertical tab and form feed for whitespace;
        // RFC 8259 allows none of the three outside strings, and no raw control character inside.
        var first = chunk.count
        for byte: Int32 in [0x00, 0x0B, 0x0C] {
            if let found = memchr(base, byte, first) { first = UnsafeRawPointer(found) - base }
        }
        if let unpaired = surrogates.firstUnpaired(in: UnsafeRawBufferPointer(start: base, count: first), at: chunkStart) {
            let offsetInChunk = max(unpaired - chunkStart, 0)
            try feed(UnsafeRawBufferPointer(start: base, count: offsetInChunk))
            throw fail(at: unpaired, "a \\u escape of a high surrogate (D800-DBFF) must be followed by one of a low surrogate (DC00-DFFF)")
        }
        if first < chunk.count {
            try feed(UnsafeRawBufferPointer(start: base, count: first))
            let byte = chunk[first]
            throw fail(at: chunkStart, byte == 0 ? "a NUL byte is not allowed in JSON text"
                : String(format: "control character 0x%02X is not allowed in JSON text", byte))
        }
        try feed(chunk)
    }

    /// The newlines of a piece of input, counted before it is passed over with ``skip(_:)``.
    package struct Lines: Sendable {
        /// The number of line feeds.
        package var count = 0
        /// The offset in the piece just after its last line feed (nil: none).
        package var lastLineStart: Int?

        /// Counts the line feeds of `bytes`.
        package init(of bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress else { return }
            var position = 0
            while position < bytes.count, let found = memchr(base + position, 0x0A, bytes.count - position) {
                position = UnsafeRawPointer(found) - base + 1
                count += 1
                lastLineStart = position
            }
        }

        /// The line feeds of `first` followed by a piece of `length` bytes with `second`'s.
        package init(_ first: Lines, then second: Lines, at length: Int) {
            count = first.count + second.count
            lastLineStart = second.lastLineStart.map { $0 + length } ?? first.lastLineStart
        }
    }

    /// Passes over `byteCount` bytes of the input, with `lines` in them, without parsing
    /// them: offsets, lines and columns of later events and errors count them, yajl never
    /// sees them.
    ///
    /// For a reader that had another parser check these bytes: they must be a sequence of
    /// values that leaves the document where it was (`, v, v` after a value in an array), and
    /// the input fed so far must end outside a string and outside an escape.
    package func skip(byteCount: Int, lines: Lines) {
        guard failure == nil, byteCount > 0 else { return }
        newlines += lines.count
        if let start = lines.lastLineStart { lineStart = chunkStart + start }
        chunkStart += byteCount
    }

    /// Ends the input: throws if the text is incomplete (or empty).
    public func finish() throws {
        if let failure { throw failure }
        guard !finished else { return }
        finished = true
        let status = yajl_complete_parse(handle)
        if status != yajl_status_ok { throw failure(status, offsetInChunk: 0) }
    }

    /// Parses a whole text in memory.
    public static func parse(_ bytes: UnsafeRawBufferPointer, handler: any JSONEventHandler) throws {
        let parser = JSONEventParser(handler: handler)
        try parser.parse(bytes)
        try parser.finish()
    }

    // MARK: - Feeding yajl

    private func feed(_ chunk: UnsafeRawBufferPointer) throws {
        guard let base = chunk.baseAddress, !chunk.isEmpty else { return }
        currentChunk = chunk
        defer { currentChunk = nil }
        let status = yajl_parse(handle, base.assumingMemoryBound(to: UInt8.self), chunk.count)
        if status != yajl_status_ok {
            throw failure(status, offsetInChunk: yajl_get_bytes_consumed(handle))
        }
        if let end = box.valueEnd { try refuseTrailingText(in: chunk, after: end) }
        countLines(in: chunk, upTo: chunk.count)
        chunkStart += chunk.count
    }

    /// Refuses anything but whitespace after the top-level value. yajl refuses most of it
    /// itself, but not a string left open at the end of the input (`{}"abc`): in its
    /// "parse complete" state the lexer waits for the rest of the token, and
    /// `yajl_complete_parse` then finds the document complete and says nothing.
    private func refuseTrailingText(in chunk: UnsafeRawBufferPointer, after end: Int) throws {
        var index = max(end - chunkStart, 0)
        while index < chunk.count {
            switch chunk[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default:
                currentChunk = chunk
                defer { currentChunk = nil }
                throw fail(at: chunkStart + index, "unexpected text after the JSON value")
            }
        }
    }

    /// Adds the newlines of `chunk[0..<end]` to the count (and moves `chunkStart` past them
    /// only when the caller does).
    private func countLines(in chunk: UnsafeRawBufferPointer, upTo end: Int) {
        guard let base = chunk.baseAddress else { return }
        var position = 0
        while position < end, let found = memchr(base + position, 0x0A, end - position) {
            let index = UnsafeRawPointer(found) - base
            newlines += 1
            lineStart = chunkStart + index + 1
            position = index + 1
        }
    }

    /// The offset, line and column of a byte of the chunk being parsed (or just after the
    /// input when no chunk is being parsed).
    func location(offsetInChunk: Int) -> (offset: Int, line: Int, column: Int) {
        var lines = newlines
        var start = lineStart
        if let chunk = currentChunk, let base = chunk.baseAddress {
            let end = min(offsetInChunk, chunk.count)
            var position = 0
            while position < end, let found = memchr(base + position, 0x0A, end - position) {
                let index = UnsafeRawPointer(found) - base
                lines += 1
                start = chunkStart + index + 1
                position = index + 1
            }
            let offset = chunkStart + end
            return (offset, lines + 1, offset - start + 1)
        }
        return (chunkStart, lines + 1, chunkStart - start + 1)
    }

    /// The place of the event being handled: just after its token.
    var currentLocation: (offset: Int, line: Int, column: Int) {
        location(offsetInChunk: currentChunk == nil ? 0 : yajl_get_bytes_consumed(handle))
    }

    private func fail(at offset: Int, _ reason: String) -> JSONError {
        var place = location(offsetInChunk: offset - chunkStart)
        if offset < chunkStart, offset >= lineStart {
            // In an earlier chunk (an escape cut by a chunk's end), on the current line.
            place = (offset, newlines + 1, offset - lineStart + 1)
        }
        let error = JSONError.invalidJSON(offset: place.offset, line: place.line, column: place.column, reason: reason)
        failure = error
        return error
    }

    private func failure(_ status: yajl_status, offsetInChunk: Int) -> Error {
        if status == yajl_status_client_canceled, let thrown = box.error {
            box.error = nil
            let error: Error
            if let text = thrown as? InvalidText {
                error = fail(at: chunkStart + invalidTextOffset(text, tokenEnd: offsetInChunk), text.reason)
            } else if let duplicate = thrown as? JSONDuplicateKeyError {
                error = fail(at: chunkStart + offsetInChunk, duplicate.reason)
            } else if let shape = thrown as? JSONShapeError {
                let place = location(offsetInChunk: offsetInChunk)
                error = JSONError.unexpectedShape(offset: place.offset, line: place.line, column: place.column, reason: shape.reason)
            } else {
                error = thrown
            }
            if let jsonError = error as? JSONError { failure = jsonError }
            return error
        }
        var reason = "invalid JSON"
        if let message = yajl_get_error(handle, 0, nil, 0) {
            reason = String(cString: message)
            yajl_free_error(handle, message)
        }
        reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        if reason.hasPrefix("parse error: ") { reason.removeFirst("parse error: ".count) }
        if reason.hasPrefix("lexical error: ") { reason.removeFirst("lexical error: ".count) }
        return fail(at: chunkStart + offsetInChunk, reason)
    }

    /// Where in the chunk to report invalid text: at its first bad byte when yajl handed
    /// over the text where it lies in the input (a string without escapes, within one
    /// chunk), else just after the string, where yajl stopped.
    private func invalidTextOffset(_ text: InvalidText, tokenEnd: Int) -> Int {
        guard let address = text.firstInvalidByte, let chunk = currentChunk, let base = chunk.baseAddress else {
            return tokenEnd
        }
        let offset = address - Int(bitPattern: base)
        return (0..<chunk.count).contains(offset) ? offset : tokenEnd
    }

    // MARK: - Callbacks

    /// Text yajl let through that is not valid UTF-8 (its own check is looser than RFC 3629).
    struct InvalidText: Error {
        let reason: String
        /// The address of the first byte that is not valid UTF-8, in the buffer yajl passed
        /// (the input, or yajl's own buffer for a string with escapes); an `Int` so that the
        /// error stays `Sendable`.
        var firstInvalidByte: Int?
    }

    /// What yajl's context pointer points to.
    final class CallbackBox {
        /// A `let` of an object the callbacks borrow: read without retaining it per event.
        let handler: any JSONEventHandler
        var error: Error?
        /// Open arrays and objects.
        var depth = 0
        /// The offset just after the top-level value, once it is complete.
        var valueEnd: Int?
        /// Set right after yajl's handle is made.
        var probe: OffsetProbe?

        init(handler: any JSONEventHandler) { self.handler = handler }

        /// How an event changes the nesting.
        enum Nesting { case open, close, scalar, key }

        @inline(__always)
        static func run(_ context: UnsafeMutableRawPointer?, _ nesting: Nesting,
                        _ body: (any JSONEventHandler) throws -> Void) -> Int32 {
            guard let context else { return 0 }
            return Unmanaged<CallbackBox>.fromOpaque(context)._withUnsafeGuaranteedRef { box in
                do {
                    try body(box.handler)
                    switch nesting {
                    case .open: box.depth += 1
                    case .close:
                        box.depth -= 1
                        if box.depth == 0 { box.valueEnd = box.probe?.offset }
                    case .scalar:
                        if box.depth == 0 { box.valueEnd = box.probe?.offset }
                    case .key: break
                    }
                    return 1
                } catch {
                    box.error = error
                    return 0
                }
            }
        }

        @inline(__always)
        static func text(_ pointer: UnsafePointer<UInt8>?, _ count: Int, key: Bool) throws -> UnsafeRawBufferPointer {
            let bytes = UnsafeRawBufferPointer(start: pointer, count: count)
            if let index = UTF8Check.firstInvalidIndex(bytes) {
                throw InvalidText(reason: key ? "invalid UTF-8 (or an unpaired surrogate escape) in an object key"
                                              : "invalid UTF-8 (or an unpaired surrogate escape) in a string",
                                  firstInvalidByte: bytes.baseAddress.map { Int(bitPattern: $0) + index })
            }
            return bytes
        }
    }

    private static func makeCallbacks() -> yajl_callbacks {
        var c = yajl_callbacks()
        c.yajl_null = { CallbackBox.run($0, .scalar) { try $0.null() } }
        c.yajl_boolean = { context, value in CallbackBox.run(context, .scalar) { try $0.bool(value != 0) } }
        c.yajl_number = { context, text, count in
            CallbackBox.run(context, .scalar) { try $0.number(UnsafeRawBufferPointer(start: text, count: count)) }
        }
        c.yajl_string = { context, text, count in
            CallbackBox.run(context, .scalar) { try $0.string(CallbackBox.text(text, count, key: false)) }
        }
        c.yajl_start_map = { CallbackBox.run($0, .open) { try $0.startObject() } }
        c.yajl_map_key = { context, text, count in
            CallbackBox.run(context, .key) { try $0.key(CallbackBox.text(text, count, key: true)) }
        }
        c.yajl_end_map = { CallbackBox.run($0, .close) { try $0.endObject() } }
        c.yajl_start_array = { CallbackBox.run($0, .open) { try $0.startArray() } }
        c.yajl_end_array = { CallbackBox.run($0, .close) { try $0.endArray() } }
        return c
    }
}
