import Foundation

/// ISO 8601 in UTC with milliseconds, written and read by hand: Foundation's formatters are
/// two orders of magnitude slower, and a store file holds a date per object.
///
/// The one date text of the project: ``Value``'s text form, the store file and the wire all
/// use it. The byte forms (``write(_:into:)``, ``date(utf8:)``) make no String, for readers
/// and writers that stream.
public enum ISO8601 {
    /// The most bytes ``write(_:into:)`` writes (`+999999-12-31T23:59:59.999Z`).
    public static let maximumLength = 27

    /// `YYYY-MM-DDTHH:MM:SS.sssZ`; dates are rounded to the millisecond. Years outside
    /// 0000...9999 have a sign and six digits (`+010000-01-01T00:00:00.000Z`); a date beyond
    /// ±999999 years is clamped to that range, and a NaN interval is written as the epoch.
    public static func string(from date: Date) -> String {
        withUnsafeTemporaryAllocation(byteCount: maximumLength, alignment: 8) { buffer in
            let count = write(date, into: buffer)
            return String(decoding: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count]), as: UTF8.self)
        }
    }

    /// Writes the text ``string(from:)`` gives into `buffer` and returns its length in bytes
    /// (24 for years 0000...9999, 27 for the others); writes nothing and returns 0 when
    /// `buffer` is shorter than ``maximumLength``.
    @inline(__always)
    public static func write(_ date: Date, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard buffer.count >= maximumLength else { return 0 }
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
        var index = 0
        @inline(__always) func put(_ value: Int64, _ width: Int) {
            var rest = value
            for position in stride(from: index + width - 1, through: index, by: -1) {
                buffer[position] = UInt8(48 + rest % 10)
                rest /= 10
            }
            index += width
        }
        @inline(__always) func put(_ character: Unicode.Scalar) {
            buffer[index] = UInt8(ascii: character)
            index += 1
        }
        if year < 0 || year > 9999 {
            put(year < 0 ? "-" : "+")
            put(abs(year), 6)
        } else {
            put(year, 4)
        }
        put("-"); put(month, 2); put("-"); put(day, 2); put("T")
        put(msOfDay / 3_600_000, 2); put(":"); put(msOfDay / 60_000 % 60, 2); put(":")
        put(msOfDay / 1000 % 60, 2); put("."); put(msOfDay % 1000, 3); put("Z")
        return index
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` (a year of six digits with a sign
    /// too); nil for anything else.
    public static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Parses the UTF-8 bytes of a date's text, as ``date(from:)`` does.
    @inline(__always)
    public static func date(utf8 bytes: UnsafeRawBufferPointer) -> Date? {
        var index = 0
        let count = bytes.count
        @inline(__always) func number(_ digits: Int) -> Int64? {
            guard count - index >= digits else { return nil }
            var value: Int64 = 0
            for position in index..<(index + digits) {
                let digit = bytes[position] &- 48
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            index += digits
            return value
        }
        @inline(__always) func expect(_ character: Unicode.Scalar) -> Bool {
            guard index < count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }
        var sign: Int64 = 1
        var yearDigits = 4
        if expect("+") {
            yearDigits = 6
        } else if expect("-") {
            sign = -1
            yearDigits = 6
        }
        guard let year = number(yearDigits), expect("-"),
              let month = number(2), expect("-"),
              let day = number(2), expect("T"),
              let hour = number(2), expect(":"),
              let minute = number(2), expect(":"),
              let second = number(2),
              (1...12).contains(month), day >= 1, day <= CivilCalendar.daysIn(month: month, year: sign * year),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction = 0.0
        if expect(".") {
            var scale = 0.1
            var digits = 0
            while index < count, bytes[index] &- 48 < 10 {
                fraction += Double(bytes[index] &- 48) * scale
                scale /= 10
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
        }
        var offsetSeconds: Int64 = 0
        if expect("Z") {
        } else if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let negative = bytes[index] == UInt8(ascii: "-")
            index += 1
            guard let oh = number(2), expect(":"), let om = number(2), oh < 24, om < 60 else { return nil }
            offsetSeconds = (oh * 3600 + om * 60) * (negative ? -1 : 1)
        } else {
            return nil
        }
        guard index == count else { return nil }
        let days = CivilCalendar.days(fromYear: sign * year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        let milliseconds = (fraction * 1000).rounded()
        return Date(timeIntervalSince1970: Double(seconds) + milliseconds / 1000)
    }

    /// The first and last millisecond that six year digits can write (-999999 ... +999999).
    private static let minMilliseconds = CivilCalendar.days(fromYear: -999_999, month: 1, day: 1) * 86_400_000
    private static let maxMilliseconds = CivilCalendar.days(fromYear: 999_999, month: 12, day: 31) * 86_400_000 + 86_399_999

    @inline(__always)
    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }
}
