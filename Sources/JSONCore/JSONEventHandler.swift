/// Receives the events of a JSON text from a ``JSONEventParser``, in document order.
///
/// Byte buffers are valid only during the call (they point into the parser's input or its
/// buffers): copy what you keep. Strings and keys are unescaped and valid UTF-8; numbers
/// are the number's JSON text exactly as written (`-12`, `1.5e3`), so that a handler can
/// read integers exactly and choose how to read the rest.
///
/// Throw from a method to stop the parse: the parser rethrows the error, except for a
/// ``JSONShapeError``, which it turns into ``JSONError/unexpectedShape(offset:line:column:reason:)``
/// naming the byte offset, line and column of the event.
public protocol JSONEventHandler: AnyObject {
    /// `null`.
    func null() throws
    /// `true` or `false`.
    func bool(_ value: Bool) throws
    /// A number, as its JSON text.
    func number(_ text: UnsafeRawBufferPointer) throws
    /// A string value (not a key), unescaped UTF-8.
    func string(_ bytes: UnsafeRawBufferPointer) throws
    /// `{`.
    func startObject() throws
    /// A key of the object being read, unescaped UTF-8.
    func key(_ bytes: UnsafeRawBufferPointer) throws
    /// `}`.
    func endObject() throws
    /// `[`.
    func startArray() throws
    /// `]`.
    func endArray() throws
}

/// Thrown by a ``JSONEventHandler`` for valid JSON of the wrong shape: the parser adds the
/// place in the input.
public struct JSONShapeError: Error, Equatable, Sendable {
    /// What was expected and found, e.g. `"metadata" must be an object`.
    public var reason: String

    /// An error with this reason.
    public init(_ reason: String) { self.reason = reason }
}

/// Thrown by a ``JSONEventHandler`` when a key appears twice in one object: the parser turns
/// it into `JSONStoreError.invalidJSON` (JSONAtomicStore) at the second
/// key (the offset just after it). The parser itself does not look for duplicates: that
/// costs a set per object, and a handler that knows the keys it expects does it for less.
public struct JSONDuplicateKeyError: Error, Equatable, Sendable {
    /// The key, unescaped.
    public var key: String

    /// An error for this key.
    public init(key: String) { self.key = key }

    /// The reason in the error message.
    public var reason: String {
        let shown = key.count > 100 ? String(key.prefix(100)) + "…" : key
        return "the key \"\(shown.replacingOccurrences(of: "\"", with: "\\\""))\" appears twice in one object"
    }
}

/// A handler that ignores every event: the parser then only checks the syntax.
public final class JSONSyntaxChecker: JSONEventHandler {
    /// A checker.
    public init() {}
    /// Ignored.
    public func null() {}
    /// Ignored.
    public func bool(_ value: Bool) {}
    /// Ignored.
    public func number(_ text: UnsafeRawBufferPointer) {}
    /// Ignored.
    public func string(_ bytes: UnsafeRawBufferPointer) {}
    /// Ignored.
    public func startObject() {}
    /// Ignored.
    public func key(_ bytes: UnsafeRawBufferPointer) {}
    /// Ignored.
    public func endObject() {}
    /// Ignored.
    public func startArray() {}
    /// Ignored.
    public func endArray() {}
}
