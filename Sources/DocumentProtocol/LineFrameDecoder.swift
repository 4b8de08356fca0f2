import Foundation
import NIOCore

/// Splits a byte stream into lines: each message of the protocol is one line ending in `\n`
/// (a `\r` just before it is dropped too; a `\r` anywhere else is part of the line).
///
/// The limit: a line may hold at most ``maximumLength`` bytes, not counting its `\n` or
/// `\r\n`. A longer one is refused with ``LineTooLongError`` as soon as more than that many
/// bytes of it arrived (a `\r` at the end of what arrived so far is not counted yet: it may
/// be the start of `\r\n`), so a client cannot make the server buffer without bound.
///
/// The result does not depend on how the bytes are split into reads: the same lines, and
/// the same error after the same lines, whether they come in one read or byte by byte.
/// Scanning resumes where the previous call stopped, so a long line arriving in many small
/// reads costs linear time.
public struct LineFrameDecoder: ByteToMessageDecoder {
    /// Each line, without its `\n` or `\r\n`.
    public typealias InboundOut = ByteBuffer

    /// The longest line accepted, in bytes, not counting its `\n` or `\r\n`.
    public let maximumLength: Int
    /// How many readable bytes are known to hold no newline.
    private var scanned = 0

    /// A decoder refusing lines longer than `maximumLength` bytes (without `\n` or `\r\n`).
    public init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    /// Passes on every complete line that arrived; throws ``LineTooLongError`` once a line
    /// is longer than ``maximumLength``.
    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let line = try nextLine(&buffer) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    /// At the end of the stream, complete lines still go out; a last line without its `\n`
    /// is dropped: the client left in the middle of a message.
    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while let line = try nextLine(&buffer) {
            context.fireChannelRead(wrapInboundOut(line))
        }
        buffer.moveReaderIndex(to: buffer.writerIndex)
        scanned = 0
        return .needMoreData
    }

    mutating func nextLine(_ buffer: inout ByteBuffer) throws -> ByteBuffer? {
        let start = scanned
        let newline: Int? = buffer.withUnsafeReadableBytes { bytes in
            guard start < bytes.count, let base = bytes.baseAddress,
                  let hit = memchr(base + start, 0x0A, bytes.count - start)
            else { return nil }
            return UnsafeRawPointer(hit) - base
        }
        guard let newline else {
            scanned = buffer.readableBytes
            // A `\r` at the end may be the start of `\r\n`: it counts once the next byte says not.
            var length = scanned
            if length > 0, buffer.getInteger(at: buffer.readerIndex + length - 1, as: UInt8.self) == UInt8(ascii: "\r") {
                length -= 1
            }
            if length > maximumLength { throw LineTooLongError(limit: maximumLength) }
            return nil
        }
        scanned = 0
        var length = newline
        if length > 0, buffer.getInteger(at: buffer.readerIndex + length - 1, as: UInt8.self) == UInt8(ascii: "\r") {
            length -= 1
        }
        if length > maximumLength { throw LineTooLongError(limit: maximumLength) }
        guard let line = buffer.getSlice(at: buffer.readerIndex, length: length) else { return nil }
        buffer.moveReaderIndex(forwardBy: newline + 1)
        return line
    }
}

/// A line longer than the limit. The server answers it with a `too large` error, then the
/// connection closes (the rest of the line cannot be told apart from the next message).
public struct LineTooLongError: Error, Equatable, CustomStringConvertible {
    /// The limit the line went past, in bytes (without its `\n` or `\r\n`).
    public let limit: Int

    /// The error for a line past `limit` bytes.
    public init(limit: Int) {
        self.limit = limit
    }

    /// "a line longer than N bytes".
    public var description: String { "a line longer than \(limit) bytes" }
}
