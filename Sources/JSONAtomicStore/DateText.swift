import Foundation
import GraphCore

/// Fast paths for the one date form the store writes, `YYYY-MM-DDTHH:MM:SS.sssZ`, giving
/// exactly what GraphCore's ``ISO8601`` gives; every other form goes to ``ISO8601``.
enum DateText {
    /// Parses a date string's bytes.
    @inline(__always)
    static func date(_ text: UnsafeRawBufferPointer) -> Date? {
        if text.count == 24, let date = canonicalDate(text) { return date }
        return ISO8601.date(from: text.string)
    }

    private static func canonicalDate(_ text: UnsafeRawBufferPointer) -> Date? {
        guard let base = text.baseAddress else { return nil }
        @inline(__always) func byte(_ i: Int) -> UInt8 { base.load(fromByteOffset: i, as: UInt8.self) }
        var bad = false
        @inline(__always) func number(_ start: Int, _ count: Int) -> Int64 {
            var value: Int64 = 0
            for i in start..<(start + count) {
                let digit = byte(i) &- 48
                if digit > 9 { bad = true }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard byte(4) == UInt8(ascii: "-"), byte(7) == UInt8(ascii: "-"), byte(10) == UInt8(ascii: "T"),
              byte(13) == UInt8(ascii: ":"), byte(16) == UInt8(ascii: ":"), byte(19) == UInt8(ascii: "."),
              byte(23) == UInt8(ascii: "Z")
        else { return nil }
        let year = number(0, 4), month = number(5, 2), day = number(8, 2)
        let hour = number(11, 2), minute = number(14, 2), second = number(17, 2), millisecond = number(20, 3)
        guard !bad, (1...12).contains(month), day >= 1, day <= CivilCalendar.daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60
        else { return nil }
        let seconds = CivilCalendar.days(fromYear: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + Double(millisecond) / 1000)
    }

    /// Writes the text of `date` (24 bytes for years 0...9999) into `buffer` and returns its
    /// length; other years are written by ``ISO8601``.
    @inline(__always)
    static func write(_ date: Date, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let interval = (date.timeIntervalSince1970 * 1000).rounded()
        // 0000-01-01 ... 9999-12-31 in milliseconds since 1970.
        guard buffer.count >= 24, interval >= -62_167_219_200_000, interval < 253_402_300_800_000 else {
            let text = ISO8601.string(from: date)
            return text.utf8.withContiguousStorageIfAvailable { utf8 in
                let count = min(utf8.count, buffer.count)
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[0..<count]))
                return count
            } ?? 0
        }
        let total = Int64(interval)
        var days = total / 86_400_000
        var msOfDay = total % 86_400_000
        if msOfDay < 0 { days -= 1; msOfDay += 86_400_000 }
        let (year, month, day) = CivilCalendar.date(fromDays: days)
        @inline(__always) func put(_ value: Int64, _ start: Int, _ width: Int) {
            var v = value
            for i in stride(from: start + width - 1, through: start, by: -1) {
                buffer[i] = UInt8(48 + v % 10)
                v /= 10
            }
        }
        put(year, 0, 4); buffer[4] = UInt8(ascii: "-")
        put(month, 5, 2); buffer[7] = UInt8(ascii: "-")
        put(day, 8, 2); buffer[10] = UInt8(ascii: "T")
        put(msOfDay / 3_600_000, 11, 2); buffer[13] = UInt8(ascii: ":")
        put(msOfDay / 60_000 % 60, 14, 2); buffer[16] = UInt8(ascii: ":")
        put(msOfDay / 1000 % 60, 17, 2); buffer[19] = UInt8(ascii: ".")
        put(msOfDay % 1000, 20, 3); buffer[23] = UInt8(ascii: "Z")
        return 24
    }
}
