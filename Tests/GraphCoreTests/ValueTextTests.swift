import Foundation
import Testing
@testable import GraphCore

/// The text forms of values (ISO 8601 dates, decimals, base64, UUIDs, URIs, non-finite
/// doubles) and the conversions of values into attribute types.
@Suite struct ValueTextTests {
    private func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    private func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    // MARK: - Writing dates

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (1_714_566_600.25, "2024-05-01T12:30:00.250Z"),
        (1_714_566_600.001, "2024-05-01T12:30:00.001Z"),
        (1_709_164_800, "2024-02-29T00:00:00.000Z"),
        (951_782_400, "2000-02-29T00:00:00.000Z"),
        (-0.001, "1969-12-31T23:59:59.999Z"),
        (-86_400, "1969-12-31T00:00:00.000Z"),
        (-2_208_988_800, "1900-01-01T00:00:00.000Z"),
        (-62_135_596_800, "0001-01-01T00:00:00.000Z"),
        (-62_167_219_200, "0000-01-01T00:00:00.000Z"),
        (-62_198_755_200, "-000001-01-01T00:00:00.000Z"),
        (253_402_300_799.999, "9999-12-31T23:59:59.999Z"),
        (253_402_300_800, "+010000-01-01T00:00:00.000Z"),
    ])
    func datesAreWrittenAsISO8601UTCWithMilliseconds(seconds: Double, text: String) {
        #expect(ISO8601.string(from: date(seconds)) == text)
        #expect(ISO8601.date(from: text).map(milliseconds) == milliseconds(date(seconds)))
    }

    @Test func datesAreRoundedToTheNearestMillisecond() {
        #expect(ISO8601.string(from: date(0.0004)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601.string(from: date(0.0006)) == "1970-01-01T00:00:00.001Z")
        #expect(ISO8601.string(from: date(59.9996)) == "1970-01-01T00:01:00.000Z")
    }

    @Test func datesRoundTripToTheMillisecond() throws {
        var generator = SystemRandomNumberGenerator()
        var samples: [Int64] = [0, 1, -1, 999, -999, 1_000, 86_399_999, -86_400_001, 253_402_300_800_000, -62_198_755_200_000]
        for _ in 0..<500 {
            samples.append(Int64.random(in: -100_000_000_000_000...300_000_000_000_000, using: &generator))
        }
        for ms in samples {
            let original = date(Double(ms) / 1000)
            let text = ISO8601.string(from: original)
            let parsed = try #require(ISO8601.date(from: text), "\(text)")
            #expect(milliseconds(parsed) == ms, "\(text)")
            #expect(ISO8601.string(from: parsed) == text)
        }
    }

    @Test func datesFarFromTodayDoNotCrash() {
        // Beyond what six year digits hold, the text is clamped rather than trapping.
        for seconds in [1e300, -1e300, Double.infinity, -Double.infinity, Double.greatestFiniteMagnitude] {
            let text = ISO8601.string(from: date(seconds))
            #expect(text.hasSuffix("Z"))
            #expect(ISO8601.date(from: text) != nil, "\(text)")
        }
        #expect(ISO8601.string(from: date(.nan)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601.string(from: .distantFuture) == "4001-01-01T00:00:00.000Z")
        // Foundation's distantPast is 1 January 1 in the Julian calendar.
        #expect(ISO8601.string(from: .distantPast) == "0000-12-30T00:00:00.000Z")
    }

    // MARK: - Reading dates

    @Test(arguments: [
        ("2024-05-01T12:30:00.250Z", 1_714_566_600.25),
        ("2024-05-01T12:30:00Z", 1_714_566_600),
        ("2024-05-01T12:30:00.5Z", 1_714_566_600.5),
        ("2024-05-01T12:30:00.123456Z", 1_714_566_600.123),
        ("2024-05-01T14:30:00.250+02:00", 1_714_566_600.25),
        ("2024-05-01T07:00:00.250-05:30", 1_714_566_600.25),
        ("2024-05-02T01:00:00+12:30", 1_714_566_600),
        ("2024-04-30T23:30:00-13:00", 1_714_566_600),
        ("2024-05-01T12:30:00+00:00", 1_714_566_600),
        ("2024-05-01T12:30:00-00:00", 1_714_566_600),
        ("2024-02-29T00:00:00Z", 1_709_164_800),
        ("2000-02-29T00:00:00Z", 951_782_400),
        ("1600-02-29T00:00:00Z", -11_670_998_400),
        ("1969-12-31T23:59:59.999Z", -0.001),
        ("+002024-05-01T12:30:00.250Z", 1_714_566_600.25),
        ("-000004-02-29T00:00:00Z", -62_288_352_000),
        ("+010000-01-01T00:00:00Z", 253_402_300_800),
        ("+999999-12-31T23:59:59.999Z", 31_494_784_780_799.999),
    ])
    func datesAreReadFromISO8601WithAnOffset(text: String, seconds: Double) throws {
        let parsed = try #require(ISO8601.date(from: text))
        #expect(milliseconds(parsed) == milliseconds(date(seconds)), "\(text)")
    }

    @Test(arguments: [
        "",
        "2024-05-01",
        "2024-05-01T12:30",
        "2024-05-01T12:30:00",  // no zone
        "2024-05-01T12:30:00.250",  // no zone
        "2024-13-01T00:00:00Z",  // month 13
        "2024-00-01T00:00:00Z",  // month 0
        "2024-05-00T00:00:00Z",  // day 0
        "2024-02-30T00:00:00Z",  // February 30
        "2023-02-29T00:00:00Z",  // not a leap year
        "1900-02-29T00:00:00Z",  // a century that is not a leap year
        "2024-04-31T00:00:00Z",  // April has 30 days
        "2024-05-01T24:00:00Z",
        "2024-05-01T12:60:00Z",
        "2024-05-01T12:30:60Z",
        "2024-05-01T12:30:00.Z",  // a point without digits
        "2024-05-01T12:30:00.250Zjunk",  // trailing junk
        "2024-05-01T12:30:00.250Z ",
        " 2024-05-01T12:30:00.250Z",
        "2024-05-01T12:30:00.250+02",
        "2024-05-01T12:30:00.250+0200",
        "2024-05-01T12:30:00.250+2:00",
        "2024-05-01T12:30:00.250+24:00",
        "2024-05-01T12:30:00.250+02:60",
        "2024-05-01 12:30:00.250Z",
        "2024-05-01t12:30:00.250Z",
        "2024-05-01T12:30:00.250z",
        "2024-5-1T12:30:00Z",
        "24-05-01T12:30:00Z",
        "20240-05-01T12:30:00Z",
        "+2024-05-01T12:30:00Z",  // an explicit sign needs six year digits
        "2024/05/01T12:30:00Z",
        "２０２４-05-01T12:30:00Z",  // full-width digits
    ])
    func badDateStringsAreRejected(text: String) {
        #expect(ISO8601.date(from: text) == nil, "\(text)")
    }

    // MARK: - Parsing text forms

    @Test func parseReadsEachTypesTextForm() throws {
        #expect(Value.parse(text: "So What", as: .string) == .string("So What"))
        #expect(Value.parse(text: "", as: .string) == .string(""))
        #expect(Value.parse(text: "2024-05-01T12:30:00.250Z", as: .date) == .date(date(1_714_566_600.25)))
        #expect(Value.parse(text: "12.345", as: .decimal) == Decimal(string: "12.345").map(Value.decimal))
        #expect(Value.parse(text: "-0.5", as: .decimal) == .decimal(Decimal(-5) / 10))
        #expect(Value.parse(text: "1e3", as: .decimal) == .decimal(1000))
        #expect(Value.parse(text: "AAEC/w==", as: .binary) == .binary(Data([0, 1, 2, 255])))
        #expect(Value.parse(text: "", as: .binary) == .binary(Data()))
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(Value.parse(text: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", as: .uuid) == .uuid(uuid))
        #expect(Value.parse(text: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", as: .uuid) == .uuid(uuid))
        #expect(Value.parse(text: "https://example.com/a?b=c", as: .uri) == URL(string: "https://example.com/a?b=c").map(Value.uri))
        #expect(Value.parse(text: "urn:isbn:0451450523", as: .uri) == URL(string: "urn:isbn:0451450523").map(Value.uri))
        for type in [AttributeType.double, .float] {
            guard case .double(let nan) = Value.parse(text: "NaN", as: type) else {
                Issue.record("NaN is not read as a \(type)")
                continue
            }
            #expect(nan.isNaN)
            #expect(Value.parse(text: "Infinity", as: type) == .double(.infinity))
            #expect(Value.parse(text: "-Infinity", as: type) == .double(-.infinity))
        }
    }

    @Test(arguments: [
        ("2024-02-30T00:00:00Z", AttributeType.date),
        ("1714566600", .date),
        ("abc", .decimal),
        ("12abc", .decimal),
        ("1.2.3", .decimal),
        ("", .decimal),
        (" 12", .decimal),
        ("12 ", .decimal),
        ("--1", .decimal),
        ("1e", .decimal),
        ("not base64!", .binary),
        ("AAEC/w=", .binary),
        ("not-a-uuid", .uuid),
        ("E621E1F8C36C495A93FC0C247A3E6E5F", .uuid),
        ("", .uri),
        ("no scheme", .uri),
        ("/relative/path", .uri),
        ("1.5", .double),
        ("nan", .double),
        ("inf", .float),
        ("+Infinity", .double),
        ("42", .int16),
        ("42", .int32),
        ("42", .int64),
        ("true", .bool),
    ])
    func parseRefusesTextThatIsNotTheTypesForm(text: String, type: AttributeType) {
        #expect(Value.parse(text: text, as: type) == nil, "\(text) as \(type)")
    }

    @Test func decimalsAreReadWithAPointWhateverTheLocale() {
        #expect(Value.parse(text: "1,5", as: .decimal) == nil)
        #expect(Value.parse(text: "1.5", as: .decimal) == .decimal(Decimal(15) / 10))
        #expect(Value.parse(text: "+1.5", as: .decimal) == .decimal(Decimal(15) / 10))
        #expect(Value.parse(text: ".5", as: .decimal) == .decimal(Decimal(5) / 10))
        #expect(Value.parse(text: "5.", as: .decimal) == .decimal(5))
        #expect(Value.parse(text: "2.5E-3", as: .decimal) == .decimal(Decimal(25) / 10000))
    }

    @Test func aDecimalNaNIsWrittenAndReadAsNaN() {
        #expect(Value.decimal(.nan).textForm == "NaN")
        guard case .decimal(let decimal) = Value.parse(text: "NaN", as: .decimal) else {
            Issue.record("NaN is not read as a decimal")
            return
        }
        #expect(decimal.isNaN)
        #expect(Value.parse(text: "nan", as: .decimal) == nil)
    }

    // MARK: - Writing text forms

    @Test func textFormWritesEachTypeThatJSONCannotHold() throws {
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let url = try #require(URL(string: "https://example.com/a%20b?c=d"))
        #expect(Value.date(date(1_714_566_600.25)).textForm == "2024-05-01T12:30:00.250Z")
        #expect(Value.decimal(Decimal(string: "12.345") ?? 0).textForm == "12.345")
        #expect(Value.decimal(Decimal(-5) / 10).textForm == "-0.5")
        #expect(Value.binary(Data([0, 1, 2, 255])).textForm == "AAEC/w==")
        #expect(Value.binary(Data()).textForm == "")
        #expect(Value.uuid(uuid).textForm == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
        #expect(Value.uri(url).textForm == "https://example.com/a%20b?c=d")
        #expect(Value.double(.nan).textForm == "NaN")
        #expect(Value.double(.infinity).textForm == "Infinity")
        #expect(Value.double(-.infinity).textForm == "-Infinity")
    }

    @Test func jsonNativeValuesHaveNoTextForm() throws {
        let natives: [Value] = [.null, .int(3), .double(2.5), .double(-0.0), .bool(true), .string("x")]
        for value in natives {
            #expect(value.textForm == nil, "\(value)")
        }
    }

    @Test func textFormsParseBackToTheSameValue() throws {
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let url = try #require(URL(string: "https://example.com/a%20b?c=d#e"))
        let values: [(Value, AttributeType)] = [
            (.date(date(-12_345_678.75)), .date),
            (.decimal(Decimal(string: "-98765.4321") ?? 0), .decimal),
            (.decimal(Decimal(string: "123456789012345678901234567890") ?? 0), .decimal),
            (.binary(Data((0...255).map { UInt8($0) })), .binary),
            (.uuid(uuid), .uuid),
            (.uri(url), .uri),
            (.double(.infinity), .double),
            (.double(-.infinity), .float),
        ]
        for (value, type) in values {
            let text = try #require(value.textForm)
            #expect(Value.parse(text: text, as: type) == value, "\(text)")
        }
    }

    // MARK: - Conversions

    @Test func conversionsKeepValuesThatFitTheType() {
        #expect(Value.int(32767).converted(to: .int16) == .int(32767))
        #expect(Value.int(32768).converted(to: .int16) == nil)
        #expect(Value.int(-32769).converted(to: .int16) == nil)
        #expect(Value.int(2_147_483_647).converted(to: .int32) == .int(2_147_483_647))
        #expect(Value.int(2_147_483_648).converted(to: .int32) == nil)
        #expect(Value.int(.min).converted(to: .int64) == .int(.min))
        #expect(Value.int(3).converted(to: .double) == .double(3))
        #expect(Value.int(3).converted(to: .decimal) == .decimal(3))
        #expect(Value.double(0.1).converted(to: .float) == .double(Double(Float(0.1))))
        #expect(Value.double(2.5).converted(to: .double) == .double(2.5))
        #expect(Value.double(.infinity).converted(to: .float) == .double(.infinity))
        #expect(Value.double(Double(Float.greatestFiniteMagnitude)).converted(to: .float)
            == .double(Double(Float.greatestFiniteMagnitude)))
        #expect(Value.null.converted(to: .date) == .null)
        #expect(Value.string("x").converted(to: .string) == .string("x"))
    }

    @Test func conversionsRefuseValuesOfAnotherKind() {
        #expect(Value.double(2.5).converted(to: .int64) == nil)
        #expect(Value.double(2.5).converted(to: .decimal) == nil)
        #expect(Value.double(1e300).converted(to: .float) == nil, "a float cannot hold it: it would become infinity")
        #expect(Value.double(-1e39).converted(to: .float) == nil)
        #expect(Value.string("3").converted(to: .int64) == nil)
        #expect(Value.bool(true).converted(to: .int16) == nil)
        #expect(Value.int(1).converted(to: .bool) == nil)
        #expect(Value.string("2024-05-01T12:30:00Z").converted(to: .date) == nil)
        #expect(Value.string("https://example.com").converted(to: .uri) == nil)
    }

    @Test func kindNamesDescribeEachValue() {
        #expect(Value.null.kindName == "nil")
        #expect(Value.int(1).kindName == "integer")
        #expect(Value.double(1).kindName == "double")
        #expect(Value.string("").kindName == "string")
        #expect(Value.date(Date()).kindName == "date")
    }
}
