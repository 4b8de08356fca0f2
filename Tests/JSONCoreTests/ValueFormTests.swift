import Foundation
import GraphCore
import Testing
@testable import JSONCore

/// The fast paths for numbers against the C library's readers, and the JSON form of dates
/// against the calendar.
@Suite struct ValueFormTests {
    @Test func integersAreReadExactlyTo64Bits() {
        func integer(_ text: String) -> Int64? { text.utf8.withContiguousStorageIfAvailable { JSONNumberText.integer(UnsafeRawBufferPointer($0)) } ?? nil }
        #expect(integer("9223372036854775807") == .max)
        #expect(integer("-9223372036854775808") == .min)
        #expect(integer("9223372036854775808") == nil)
        #expect(integer("-9223372036854775809") == nil)
        #expect(integer("1.0") == nil)
        #expect(integer("1e3") == nil)
        #expect(integer("-0") == 0)
    }

    @Test func doublesAreReadAsStrtodReadsThem() {
        var generator = SystemRandomNumberGenerator()
        var texts = ["0.1", "5e-324", "1.7976931348623157e308", "1e400", "-0.0", "123456789012345678901234567890", "0.30000000000000004",
                     "9007199254740993", "1e22", "1e23", "4.35", "2.5E-3"]
        for _ in 0..<20_000 {
            let value = Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF)
            texts.append(value.description)
            texts.append(String(Double(Int64.random(in: -1_000_000_000...1_000_000_000)) / 1000))
        }
        for text in texts {
            let parsed = text.utf8.withContiguousStorageIfAvailable { JSONNumberText.double(UnsafeRawBufferPointer($0)) } ?? .nan
            #expect(parsed.bitPattern == strtod(text, nil).bitPattern, "\(text)")
        }
    }

    @Test func valuesOfAMessageAreReadAsTheStoreFileReadsThem() {
        #expect(ValueForm.value(.number("32767"), as: .int16) == .int(32767))
        #expect(ValueForm.value(.number("32768"), as: .int16) == nil)
        #expect(ValueForm.value(.number("1.5"), as: .double) == .double(1.5))
        #expect(ValueForm.value(.string("NaN"), as: .double)?.description == Value.double(.nan).description)
        #expect(ValueForm.value(.bool(true), as: .bool) == .bool(true))
        #expect(ValueForm.value(.bool(true), as: .int64) == nil)
        #expect(ValueForm.value(.null, as: .string) == .null)
        #expect(ValueForm.value(.string("2024-05-01T12:30:00.250Z"), as: .date) == .date(Date(timeIntervalSince1970: 1_714_566_600.25)))
        #expect(ValueForm.value(.array([]), as: .string) == nil)
        #expect(ValueForm.value(.object([]), as: .string) == nil)
    }

    /// The text of a date as ``ValueForm`` writes it, without the quotes.
    static func written(_ date: Date) throws -> String {
        let bytes = try JSONText.make { try ValueForm.write(.date(date), as: .date, to: $0) }
        return String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
    }

    @Test func datesAreWrittenAsTheGregorianCalendarSpellsThem() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        for _ in 0..<2_000 {
            // 1583-01-01 ... 9999-12-31: Foundation's Gregorian calendar is Julian before October 1582.
            let seconds = Int64.random(in: -12_212_553_600...253_402_300_799)
            let milliseconds = Int64.random(in: 0...999)
            let date = Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000)
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                                from: Date(timeIntervalSince1970: Double(seconds)))
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                                  parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, Int(milliseconds))
            let text = try Self.written(date)
            #expect(text == expected)
            #expect(text == ISO8601.string(from: date))
        }
        #expect(try Self.written(Date(timeIntervalSince1970: 253_402_300_800)) == "+010000-01-01T00:00:00.000Z")
    }

    @Test func datesAreReadAsGraphCoreReadsThem() {
        var texts: [String] = []
        for _ in 0..<2_000 {
            texts.append(ISO8601.string(from: Date(timeIntervalSince1970: Double.random(in: -62_167_219_200...253_402_300_799.999))))
        }
        texts += ["+010000-01-01T00:00:00.000Z", "2024-02-29T23:59:59.999Z", "2023-02-29T00:00:00.000Z", "2024-05-01T12:30:00Z",
                  "2024-05-01T12:30:00.250+02:00", "2024-13-01T00:00:00.000Z", "2024-05-01T24:00:00.000Z", "2024-05-01 12:30:00.000Z"]
        for text in texts {
            var utf8 = text
            let read = utf8.withUTF8 { ValueForm.value(string: UnsafeRawBufferPointer($0), as: .date) }
            #expect(read == ISO8601.date(from: text).map(Value.date), "\(text)")
        }
        #expect(ISO8601.date(from: "2024-05-01T14:30:00.2504+02:00") == Date(timeIntervalSince1970: 1_714_566_600.25))
        #expect(ISO8601.date(from: "2023-02-29T00:00:00.000Z") == nil)
    }
}
