import Foundation
import GraphCore

/// The JSON form of attribute values, as `docs/FILE_FORMAT.md` defines it: one definition
/// for the store file and for the wire (`docs/PROTOCOL.md`).
///
/// Reading is lenient where the document says so (a decimal may be a JSON integer, a date
/// may carry any offset, `"NaN"` and the infinities are strings); writing gives the one
/// canonical form.
public enum ValueForm {
    /// The value of a JSON number (its text) for an attribute of `type`, or nil when a
    /// number is not a value of that type (or does not fit it).
    @inline(__always)
    public static func value(number text: UnsafeRawBufferPointer, as type: AttributeType) -> Value? {
        switch type {
        case .int16, .int32, .int64:
            guard let value = JSONNumberText.integer(text), fits(value, type) else { return nil }
            return .int(value)
        case .double:
            let value = JSONNumberText.double(text)
            return value.isFinite ? .double(value) : nil
        case .float:
            let value = Float(JSONNumberText.double(text))
            return value.isFinite ? .double(Double(value)) : nil
        case .decimal:
            guard JSONNumberText.isIntegerSyntax(text) else { return nil }
            return Value.parse(text: text.string, as: .decimal)
        case .string, .bool, .date, .binary, .uuid, .uri:
            return nil
        }
    }

    /// The value of a JSON string (unescaped UTF-8) for an attribute of `type`, or nil.
    @inline(__always)
    public static func value(string bytes: UnsafeRawBufferPointer, as type: AttributeType) -> Value? {
        switch type {
        case .string:
            return .string(bytes.string)
        case .date:
            return ISO8601.date(utf8: bytes).map(Value.date)
        case .double, .float:
            if bytes.equals("NaN") { return .double(.nan) }
            if bytes.equals("Infinity") { return .double(.infinity) }
            if bytes.equals("-Infinity") { return .double(-.infinity) }
            return nil
        case .decimal, .binary, .uuid, .uri:
            return Value.parse(text: bytes.string, as: type)
        case .int16, .int32, .int64, .bool:
            return nil
        }
    }

    /// Writes an attribute value in its canonical form; a value of a convertible kind (an
    /// integer in a double attribute) is written as the type holds it.
    ///
    /// - Throws: ``UnencodableValue`` when the value is not one of `type` at all.
    public static func write(_ value: Value, as type: AttributeType, to out: JSONGenerator) throws {
        switch (type, value) {
        case (_, .null): try out.null()
        case (.int16, .int(let i)), (.int32, .int(let i)), (.int64, .int(let i)): try out.integer(i)
        case (.double, .double(let d)), (.float, .double(let d)):
            if d.isFinite { try out.double(d) } else { try out.string(d.isNaN ? "NaN" : d < 0 ? "-Infinity" : "Infinity") }
        case (.string, .string(let s)): try out.string(s)
        case (.bool, .bool(let b)): try out.bool(b)
        case (.date, .date(let date)):
            try withUnsafeTemporaryAllocation(byteCount: ISO8601.maximumLength, alignment: 8) { buffer in
                let count = ISO8601.write(date, into: buffer)
                try out.string(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count]))
            }
        case (.decimal, .decimal), (.binary, .binary), (.uuid, .uuid), (.uri, .uri):
            try out.string(value.textForm ?? "")
        default:
            guard let converted = value.converted(to: type), converted != value else {
                throw UnencodableValue(reason: "a property of type \(type.rawValue) holds \(value.kindName) \(value)")
            }
            try write(converted, as: type, to: out)
        }
    }

    /// A value that has no JSON form for its property.
    public struct UnencodableValue: Error, CustomStringConvertible {
        /// What the value is and what was expected.
        public let reason: String
        /// The reason.
        public var description: String { reason }
    }

    /// What a value of `type` must look like, for error messages.
    public static func expectation(for type: AttributeType) -> String {
        switch type {
        case .int16: return "an int16 (JSON integer from -32768 to 32767)"
        case .int32: return "an int32 (JSON integer from -2147483648 to 2147483647)"
        case .int64: return "an int64 (JSON integer)"
        case .double: return "a double (JSON number, \"NaN\", \"Infinity\" or \"-Infinity\")"
        case .float: return "a float (JSON number in the range of Float, \"NaN\", \"Infinity\" or \"-Infinity\")"
        case .decimal: return "a decimal (string in decimal notation, or JSON integer)"
        case .string: return "a string"
        case .bool: return "a bool (true or false)"
        case .date: return "a date (ISO 8601 string)"
        case .binary: return "binary data (base64 string)"
        case .uuid: return "a UUID (string)"
        case .uri: return "a URI (string with a scheme)"
        }
    }

    @inline(__always)
    private static func fits(_ value: Int64, _ type: AttributeType) -> Bool {
        switch type {
        case .int16: return Int64(Int16.min)...Int64(Int16.max) ~= value
        case .int32: return Int64(Int32.min)...Int64(Int32.max) ~= value
        default: return true
        }
    }
}
