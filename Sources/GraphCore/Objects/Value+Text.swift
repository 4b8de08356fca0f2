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

/// ISO 8601 in UTC with milliseconds, written and read by hand: Foundation's formatters are
/// two orders of magnitude slower, and a store file holds a date per object.
public enum ISO8601 {
    /// `YYYY-MM-DDTHH:MM:SS.sssZ`; dates are rounded to the millisecond. Years outside
    /// 0000...9999 have a sign and six digits (`+010000-01-01T00:00:00.000Z`); a date beyond
    /// ±999999 years is clamped to that range, and a NaN interval is written as the epoch.
    public static func string(from date: Date) -> String {
        let interval = (date.timeIntervalSince1970 * 1000).rounded()
        let totalMilliseconds: Int64
        if interval.isNaN {
            totalMilliseconds = 0
        } else if interval >= Double(maxMilliseconds) {  // compared as Double, clamped as Int64:
            totalMilliseconds = maxMilliseconds           // Double(maxMilliseconds) may round up
        } else if interval <= Double(minMilliseconds) {
            totalMilliseconds = minMilliseconds
        } else {
            totalMilliseconds = min(max(Int64(interval), minMilliseconds), maxMilliseconds)
        }
        let (daysSinceEpoch, msOfDay) = floorDivide(totalMilliseconds, 86_400_000)
        let (year, month, day) = CivilCalendar.date(fromDays: daysSinceEpoch)
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60
        let millisecond = msOfDay % 1000
        var out = ""
        out.reserveCapacity(24)
        if year < 0 || year > 9999 {
            out += year < 0 ? "-" : "+"
            out += pad(abs(year), 6)
        } else {
            out += pad(year, 4)
        }
        out += "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(hour, 2) + ":" + pad(minute, 2) + ":"
            + pad(second, 2) + "." + pad(millisecond, 3) + "Z"
        return out
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; nil for anything else.
    public static func date(from text: String) -> Date? {
        var bytes = Array(text.utf8)[...]
        func number(_ count: Int) -> Int64? {
            guard bytes.count >= count else { return nil }
            var value: Int64 = 0
            for byte in bytes.prefix(count) {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            bytes = bytes.dropFirst(count)
            return value
        }
        func expect(_ c: UInt8) -> Bool {
            guard bytes.first == c else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        var sign: Int64 = 1
        var yearDigits = 4
        if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") {
            sign = bytes.first == UInt8(ascii: "-") ? -1 : 1
            bytes = bytes.dropFirst()
            yearDigits = 6
        }
        guard let year = number(yearDigits), expect(UInt8(ascii: "-")),
              let month = number(2), expect(UInt8(ascii: "-")),
              let day = number(2), expect(UInt8(ascii: "T")),
              let hour = number(2), expect(UInt8(ascii: ":")),
              let minute = number(2), expect(UInt8(ascii: ":")),
              let second = number(2),
              (1...12).contains(month), day >= 1, day <= CivilCalendar.daysIn(month: month, year: sign * year),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction = 0.0
        if expect(UInt8(ascii: ".")) {
            var scale = 0.1
            var digits = 0
            while let byte = bytes.first, byte >= 48, byte <= 57 {
                fraction += Double(byte - 48) * scale
                scale /= 10
                digits += 1
                bytes = bytes.dropFirst()
            }
            guard digits > 0 else { return nil }
        }
        var offsetSeconds: Int64 = 0
        if expect(UInt8(ascii: "Z")) {
        } else if let s = bytes.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") {
            bytes = bytes.dropFirst()
            guard let oh = number(2), expect(UInt8(ascii: ":")), let om = number(2), oh < 24, om < 60 else { return nil }
            offsetSeconds = (oh * 3600 + om * 60) * (s == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        guard bytes.isEmpty else { return nil }
        let days = CivilCalendar.days(fromYear: sign * year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        let milliseconds = (fraction * 1000).rounded()
        return Date(timeIntervalSince1970: Double(seconds) + milliseconds / 1000)
    }

    /// The first and last millisecond that six year digits can write (-999999 ... +999999).
    private static let minMilliseconds = CivilCalendar.days(fromYear: -999_999, month: 1, day: 1) * 86_400_000
    private static let maxMilliseconds = CivilCalendar.days(fromYear: 999_999, month: 12, day: 31) * 86_400_000 + 86_399_999

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }
}
