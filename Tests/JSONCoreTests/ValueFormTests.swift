import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// The text forms the loader accepts beyond the ones the writer produces, and the fast
/// paths for numbers and dates against GraphCore's reference functions.
@Suite struct ValueFormTests {
    let model: ObjectModel
    let directory: TemporaryDirectory

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
    }

    @Test func otherSpellingsOfValuesAreAcceptedOnLoad() throws {
        let values = "\"uid\":\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\",\"added\":\"2024-05-01T14:30:00.2504+02:00\","
            + "\"ratio\":3,\"weight\":-0,\"price\":12,\"blob\":\"\",\"medium\":-2147483648,\"small\":-0"
        let url = directory.file("store.json")
        try Data(StoreFiles.document(model, objects: "{\"Item\":[\(StoreFiles.item(1, values))]}").utf8).write(to: url)
        let open = try OpenStore(url, model: model)
        let node = try #require(open.store.cacheNodes().first)
        let value = { (key: String) in node.value(forKey: key) }
        #expect(value("uid") == .uuid(UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")!))
        #expect(value("added") == .date(Date(timeIntervalSince1970: 1_714_566_600.25)))
        #expect(value("ratio") == .double(3))
        #expect(value("price") == .decimal(12))
        #expect(value("blob") == .binary(Data()))
        #expect(value("medium") == .int(-2_147_483_648))
        #expect(value("small") == .int(0))
        try open.store.save()
        let text = try fileText(url)
        #expect(text.contains("\"uid\":\"e621e1f8-c36c-495a-93fc-0c247a3e6e5f\""))
        #expect(text.contains("\"added\":\"2024-05-01T12:30:00.250Z\""))
        #expect(text.contains("\"ratio\":3.0") && text.contains("\"weight\":-0.0") && text.contains("\"price\":\"12\""))
    }

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

    @Test func datesAreWrittenAndReadAsGraphCoreWritesAndReadsThem() {
        var texts: [String] = []
        for _ in 0..<20_000 {
            let date = Date(timeIntervalSince1970: Double.random(in: -62_167_219_200...253_402_300_799.999))
            let reference = ISO8601.string(from: date)
            let written = withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { buffer in
                String(decoding: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<DateText.write(date, into: buffer)]), as: UTF8.self)
            }
            #expect(written == reference)
            texts.append(reference)
        }
        texts += ["+010000-01-01T00:00:00.000Z", "2024-02-29T23:59:59.999Z", "2023-02-29T00:00:00.000Z", "2024-05-01T12:30:00Z",
                  "2024-05-01T12:30:00.250+02:00", "2024-13-01T00:00:00.000Z", "2024-05-01T24:00:00.000Z", "2024-05-01 12:30:00.000Z"]
        for text in texts {
            let parsed = text.utf8.withContiguousStorageIfAvailable { DateText.date(UnsafeRawBufferPointer($0)) } ?? nil
            #expect(parsed == ISO8601.date(from: text), "\(text)")
        }
        let far = Date(timeIntervalSince1970: 253_402_300_800)
        let written = withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { buffer in
            String(decoding: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<DateText.write(far, into: buffer)]), as: UTF8.self)
        }
        #expect(written == "+010000-01-01T00:00:00.000Z")
    }
}
