import Foundation

/// The text forms of values that JSON has no type for, shared by the model file, the JSON
/// store file and the wire protocol (`docs/FILE_FORMAT.md`):
/// dates as ISO 8601 UTC with milliseconds (`2024-05-01T12:30:00.250Z`), decimals as
/// strings, binary as base64, UUIDs and URIs as strings.
extension Value {
    /// Parses the text form of a `date`, `decimal`, `binary`, `uuid`, `uri` or `string` value.
    public static func parse(text: String, as type: AttributeType) -> Value? {
        switch type {
        case .string: return .string(text)
        case .date: return ISO8601.date(from: text).map(Value.date)
        case .decimal:
            // Decimal(string:) does not read its own "NaN", and reads the longest prefix it can
            // ("12abc" gives 12): the whole text is checked first.
            if text == "NaN" { return .decimal(.nan) }
            guard isDecimalNumber(text),
                  let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
                  !decimal.isNaN
            else { return nil }
            return .decimal(decimal)
        case .binary: return Data(base64Encoded: text).map(Value.binary)
        case .uuid: return UUID(uuidString: text).map(Value.uuid)
        case .uri:
            guard let url = URL(string: text), url.scheme != nil else { return nil }
            return .uri(url)
        case .double, .float:
            switch text {
            case "NaN": return .double(.nan)
            case "Infinity": return .double(.infinity)
            case "-Infinity": return .double(-.infinity)
            default: return nil
            }
        default: return nil
        }
    }

    /// Whether `text` is a plain decimal number: `[+-]digits[.digits][(e|E)[+-]digits]`,
    /// with digits on at least one side of the point.
    private static func isDecimalNumber(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        func digits() -> Int {
            let count = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        func skipSign() {
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        }
        skipSign()
        var mantissaDigits = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissaDigits += digits()
        }
        guard mantissaDigits > 0 else { return false }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            skipSign()
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }

    /// The text form of a value that JSON cannot hold natively, or nil for JSON-native values
    /// (integers, finite doubles, bools, strings, nil).
    public var textForm: String? {
        switch self {
        case .date(let date): return ISO8601.string(from: date)
        case .decimal(let decimal): return decimal.description
        case .binary(let data): return data.base64EncodedString()
        case .uuid(let uuid): return uuid.uuidString.lowercased()
        case .uri(let url): return url.absoluteString
        case .double(let d) where d.isNaN: return "NaN"
        case .double(let d) where d.isInfinite: return d < 0 ? "-Infinity" : "Infinity"
        default: return nil
        }
    }
}
