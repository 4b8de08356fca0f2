import Foundation
import JSONCore
import Testing
@testable import JSONAtomicStore

/// The fast reader of a store file's ranges accepts only what the strict parser accepts,
/// with the same events; what it declines is parsed by the strict parser in place.
@Suite struct RangeScannerTests {
    /// Writes every event down.
    final class Recorder: JSONEventHandler {
        var events: [String] = []
        func null() { events.append("null") }
        func bool(_ value: Bool) { events.append("\(value)") }
        func number(_ text: UnsafeRawBufferPointer) { events.append("#" + String(decoding: text, as: UTF8.self)) }
        func string(_ bytes: UnsafeRawBufferPointer) { events.append("s" + Array(bytes).map { String($0) }.joined(separator: ",")) }
        func startObject() { events.append("{") }
        func key(_ bytes: UnsafeRawBufferPointer) { events.append("k" + Array(bytes).map { String($0) }.joined(separator: ",")) }
        func endObject() { events.append("}") }
        func startArray() { events.append("[") }
        func endArray() { events.append("]") }
    }

    /// The events of the scanner (nil: declined) and of the strict parser (nil: refused).
    static func events(_ bytes: [UInt8], asElements: Bool) throws -> (scanner: [String]?, parser: [String]?) {
        let scanned = Recorder()
        var scanner = RangeScanner(handler: scanned)
        defer { scanner.deallocate() }
        let accepted = try bytes.withUnsafeBytes { asElements ? try scanner.scanElements($0) : try scanner.scanDocument($0) }
        let parsed = Recorder()
        let text = asElements ? Array("[".utf8) + bytes + Array("]".utf8) : bytes
        let valid: Bool
        do {
            try text.withUnsafeBytes { try JSONEventParser.parse($0, handler: parsed) }
            valid = true
        } catch {
            valid = false
        }
        return (accepted ? scanned.events : nil, valid ? parsed.events : nil)
    }

    static let suite: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/fixtures/JSONTestSuite/test_parsing")

    @Test func everyTestSuiteFileTheScannerAcceptsTheStrictParserAcceptsWithTheSameEvents() throws {
        let files = try FileManager.default.contentsOfDirectory(at: Self.suite, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
        #expect(files.count > 300)
        var acceptedValid = 0, valid = 0
        for url in files {
            let bytes = Array(try Data(contentsOf: url))
            let (scanner, parser) = try Self.events(bytes, asElements: false)
            if let scanner {
                #expect(parser == scanner, "\(url.lastPathComponent)")
            }
            if url.lastPathComponent.hasPrefix("y_") {
                valid += 1
                if scanner != nil { acceptedValid += 1 }
            }
        }
        // Declining is safe but slow: the common texts are read.
        #expect(acceptedValid * 10 >= valid * 8, "\(acceptedValid) of \(valid)")
    }

    @Test func aRangeIsReadAsTheElementsOfAnArray() throws {
        let text = #"{"ref":1,"version":2,"values":{"name":"a \"b\" \u00e9 \n","n":-1.5e3,"t":true,"f":false,"z":null,"l":[1,2,[]],"o":{}}} , {"ref":2}"#
        let (scanner, parser) = try Self.events(Array(text.utf8), asElements: true)
        #expect(scanner != nil)
        #expect(scanner == parser)
        #expect(try Self.events([], asElements: true).scanner == ["[", "]"])
    }

    @Test(arguments: [
        "{\"a\":1},", ",{\"a\":1}", "{\"a\":1,}", "{\"a\" 1}", "[1,]", "01", "1.", "-", "1e", "\"\\ud83d\\ude00\"", "\"\\u0000\"",
        "\"a\u{1}\"", "tru", "nul", "{\"a\":1}}", "\"\\x\"", "{\"a\":1}\u{0}", "\u{0B}1",
    ])
    func unusualOrInvalidTextIsDeclined(_ text: String) throws {
        #expect(try Self.events(Array(text.utf8), asElements: true).scanner == nil, "\(text.debugDescription)")
    }

    @Test func aDamagedRangeIsNeverAcceptedWhereTheStrictParserRefusesIt() throws {
        // Every byte of a range replaced by each of a few troublemakers.
        let text = Array(#"{"ref":12,"version":1,"values":{"name":"x\ty","ratio":0.25,"tags":[3,4],"ok":true}},{"ref":13,"version":1,"values":{}}"#.utf8)
        let replacements = Array("\"\\{}[],:0-.eE \u{0}\u{1}atn/u".utf8) + [0x80, 0xC3, 0xFF]
        for index in text.indices {
            for byte in replacements {
                var damaged = text
                damaged[index] = byte
                let (scanner, parser) = try Self.events(damaged, asElements: true)
                if let scanner {
                    #expect(parser == scanner, "byte \(index) as \(byte): \(String(decoding: damaged, as: UTF8.self))")
                }
            }
            var shortened = text
            shortened.remove(at: index)
            let (scanner, parser) = try Self.events(shortened, asElements: true)
            if let scanner { #expect(parser == scanner, "byte \(index) removed") }
        }
    }
}
