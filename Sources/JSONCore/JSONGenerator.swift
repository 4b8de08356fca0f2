import CYajl
import Foundation

/// A thin wrapper of `yajl_gen` for writing compact JSON: numbers are handed over as text
/// (integers formatted here, doubles by Swift's shortest round-trip form), and the output
/// is taken out of yajl's buffer in chunks with ``flush(_:)``.
///
/// Not `Sendable`: one generator belongs to one thread. Every call throws only when the
/// nesting is wrong (a key where a value is expected, say): a bug of the caller.
public final class JSONGenerator {
    private let handle: yajl_gen

    /// A failed generator call: a bug in the caller's nesting, reported rather than trapped.
    public struct GenerationError: Error, CustomStringConvertible {
        let status: UInt32
        /// The yajl status, for the bug report.
        public var description: String { "yajl_gen failed with status \(status)" }
    }

    /// A generator of compact JSON, without checks of UTF-8 (Swift strings are valid).
    ///
    /// - Throws: ``GenerationError`` when yajl cannot allocate one.
    public init() throws {
        guard let handle = yajl_gen_alloc(nil) else { throw GenerationError(status: 0) }
        self.handle = handle
        _ = cyajl_gen_config_bool(handle, yajl_gen_beautify, 0)
        _ = cyajl_gen_config_bool(handle, yajl_gen_validate_utf8, 0)  // Swift strings are valid UTF-8
        _ = cyajl_gen_config_bool(handle, yajl_gen_escape_solidus, 0)
    }

    deinit { yajl_gen_free(handle) }

    @inline(__always)
    private func check(_ status: yajl_gen_status) throws {
        if status != yajl_gen_status_ok { throw GenerationError(status: status.rawValue) }
    }

    /// Opens an object: keys and values follow, then ``closeObject()``.
    public func openObject() throws { try check(yajl_gen_map_open(handle)) }
    /// Closes the object opened last.
    public func closeObject() throws { try check(yajl_gen_map_close(handle)) }
    /// Opens an array: values follow, then ``closeArray()``.
    public func openArray() throws { try check(yajl_gen_array_open(handle)) }
    /// Closes the array opened last.
    public func closeArray() throws { try check(yajl_gen_array_close(handle)) }
    /// `null`.
    public func null() throws { try check(yajl_gen_null(handle)) }
    /// `true` or `false`.
    public func bool(_ value: Bool) throws { try check(yajl_gen_bool(handle, value ? 1 : 0)) }

    /// A string (or a key, where a key is expected) from UTF-8 bytes.
    @inline(__always)
    public func string(_ bytes: UnsafeRawBufferPointer) throws {
        if let base = bytes.baseAddress {
            try check(yajl_gen_string(handle, base.assumingMemoryBound(to: UInt8.self), bytes.count))
        } else {
            var zero: UInt8 = 0
            try check(yajl_gen_string(handle, &zero, 0))
        }
    }

    /// A string (or a key, where a key is expected).
    @inline(__always)
    public func string(_ text: String) throws {
        var text = text
        try text.withUTF8 { try string(UnsafeRawBufferPointer($0)) }
    }

    /// A string (or a key, where a key is expected) from UTF-8 bytes.
    @inline(__always)
    public func string(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try string($0) }
    }

    /// A number from its JSON text.
    @inline(__always)
    public func number(_ text: UnsafeRawBufferPointer) throws {
        guard let base = text.baseAddress else { throw GenerationError(status: 0) }
        try check(yajl_gen_number(handle, base.assumingMemoryBound(to: CChar.self), text.count))
    }

    /// An integer, formatted here (yajl's own goes through printf).
    @inline(__always)
    public func integer(_ value: Int64) throws {
        try withUnsafeTemporaryAllocation(byteCount: 24, alignment: 8) { buffer in
            let count = Self.format(value, into: buffer)
            try number(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[(24 - count)...]))
        }
    }

    /// A finite double in Swift's shortest form that reads back to the same double.
    @inline(__always)
    public func double(_ value: Double) throws {
        var text = value.description
        try text.withUTF8 { try number(UnsafeRawBufferPointer($0)) }
    }

    /// Writes the digits of `value` at the end of `buffer` (24 bytes) and returns their count.
    @inline(__always)
    static func format(_ value: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var magnitude = value.magnitude
        var index = 24
        repeat {
            index -= 1
            buffer[index] = UInt8(48 + magnitude % 10)
            magnitude /= 10
        } while magnitude != 0
        if value < 0 {
            index -= 1
            buffer[index] = UInt8(ascii: "-")
        }
        return 24 - index
    }

    /// The bytes generated since the last flush.
    public var bufferedCount: Int {
        var pointer: UnsafePointer<UInt8>?
        var length = 0
        _ = yajl_gen_get_buf(handle, &pointer, &length)
        return length
    }

    /// Hands the generated bytes to `sink` and empties yajl's buffer.
    public func flush(_ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        var pointer: UnsafePointer<UInt8>?
        var length = 0
        try check(yajl_gen_get_buf(handle, &pointer, &length))
        if length > 0 { try sink(UnsafeRawBufferPointer(start: pointer, count: length)) }
        yajl_gen_clear(handle)
    }

    /// Starts a new top-level value, written after `separator` (for a list of values
    /// generated as separate documents).
    public func reset(separator: String?) {
        if let separator { yajl_gen_reset(handle, separator) } else { yajl_gen_reset(handle, nil) }
    }
}
