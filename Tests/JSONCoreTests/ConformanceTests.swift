import Foundation
import Testing
@testable import JSONCore

/// The JSON reader against JSONTestSuite's `test_parsing`: every `y_` file accepted,
/// every `n_` file refused. The `i_` files (where RFC 8259 lets a parser choose) are parsed
/// and their outcome printed, for docs/FILE_FORMAT.md.
@Suite struct ConformanceTests {
    /// `../shared/fixtures/JSONTestSuite/test_parsing`, beside the repository's root.
    static let suite: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/fixtures/JSONTestSuite/test_parsing")

    static func files(_ prefix: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: suite, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasPrefix(prefix) && $0.pathExtension == "json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// nil when the parser accepts the file, else its error.
    static func parse(_ url: URL) throws -> JSONError? {
        let data = try Data(contentsOf: url)
        do {
            try data.withUnsafeBytes { try JSONEventParser.parse($0, handler: JSONSyntaxChecker()) }
            return nil
        } catch let error as JSONError {
            return error
        }
    }

    /// The same, fed one byte at a time (chunk boundaries must not matter).
    static func parseBytewise(_ url: URL) throws -> Bool {
        let data = try Data(contentsOf: url)
        let parser = JSONEventParser(handler: JSONSyntaxChecker())
        do {
            try data.withUnsafeBytes { bytes in
                for index in bytes.indices { try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + 1)])) }
            }
            try parser.finish()
            return true
        } catch {
            return false
        }
    }

    @Test func theTestSuiteIsThere() throws {
        #expect(try Self.files("y_").count > 90)
        #expect(try Self.files("n_").count > 180)
    }

    @Test func everyYFileIsAccepted() throws {
        for url in try Self.files("y_") {
            let error = try Self.parse(url)
            #expect(error == nil, "\(url.lastPathComponent): \(error.map(String.init(describing:)) ?? "")")
            #expect(try Self.parseBytewise(url), "\(url.lastPathComponent), byte by byte")
        }
    }

    @Test func everyNFileIsRefused() throws {
        for url in try Self.files("n_") {
            #expect(try Self.parse(url) != nil, "\(url.lastPathComponent) was accepted")
            #expect(try !Self.parseBytewise(url), "\(url.lastPathComponent) was accepted byte by byte")
        }
    }

    /// What docs/FILE_FORMAT.md says of the `i_` files: numbers and deep nesting pass the
    /// syntax layer (the store judges values itself), everything else is refused.
    static let acceptedImplementationDefined: Set<String> = [
        "i_number_double_huge_neg_exp.json", "i_number_huge_exp.json", "i_number_neg_int_huge_exp.json",
        "i_number_pos_double_huge_exp.json", "i_number_real_neg_overflow.json", "i_number_real_pos_overflow.json",
        "i_number_real_underflow.json", "i_number_too_big_neg_int.json", "i_number_too_big_pos_int.json",
        "i_number_very_big_negative_int.json", "i_structure_500_nested_arrays.json",
    ]

    @Test func implementationDefinedFilesGoAsTheFileFormatDocumentSays() throws {
        let files = try Self.files("i_")
        #expect(files.count > 30)
        for url in files {
            let name = url.lastPathComponent
            let error = try Self.parse(url)
            let accepted = Self.acceptedImplementationDefined.contains(name)
            #expect((error == nil) == accepted, "\(name): \(error.map(String.init(describing:)) ?? "accepted")")
            // Whatever the outcome, it is the same when fed byte by byte.
            #expect(try Self.parseBytewise(url) == (error == nil), "\(name), byte by byte")
        }
    }

    @Test func surrogatePairEscapesAreDecodedAndUnpairedOnesRefusedWherever() throws {
        // Python's json.dumps writes characters beyond the BMP as escaped surrogate pairs.
        let pair = #"["a\uD834\uDD1Eb", "\\uD800"]"#
        let recorder = StringRecorder()
        try Array(pair.utf8).withUnsafeBytes { try JSONEventParser.parse($0, handler: recorder) }
        #expect(recorder.strings == ["a\u{1D11E}b", "\\uD800"])

        // Each text with the offset of the unpaired escape's backslash.
        for (text, expected) in [(#"["\uD800"]"#, 2), (#"["x\uD800\u0041"]"#, 3), (#"{"\uDBFFk": 1}"#, 2), (#"["\\\uD834"]"#, 4)] {
            let bytes = Array(text.utf8)
            // Fed whole and cut at every place: refused each time, at the escape's backslash.
            for cut in 0...bytes.count {
                let parser = JSONEventParser(handler: JSONSyntaxChecker())
                var found: JSONError?
                do {
                    try bytes.withUnsafeBytes { all in
                        try parser.parse(UnsafeRawBufferPointer(rebasing: all[0..<cut]))
                        try parser.parse(UnsafeRawBufferPointer(rebasing: all[cut...]))
                    }
                    try parser.finish()
                } catch let error as JSONError {
                    found = error
                }
                guard case .invalidJSON(let offset, _, _, let reason)? = found else {
                    Issue.record("\(text) cut at \(cut) was accepted")
                    continue
                }
                #expect(reason.contains("surrogate"), "\(text) cut at \(cut): \(reason)")
                #expect(offset == expected, "\(text) cut at \(cut)")
            }
        }
    }
}

/// Keeps the strings a parse reports.
final class StringRecorder: JSONEventHandler {
    var strings: [String] = []

    func null() {}
    func bool(_ value: Bool) {}
    func number(_ text: UnsafeRawBufferPointer) {}
    func string(_ bytes: UnsafeRawBufferPointer) { strings.append(String(decoding: bytes, as: UTF8.self)) }
    func startObject() {}
    func key(_ bytes: UnsafeRawBufferPointer) {}
    func endObject() {}
    func startArray() {}
    func endArray() {}
}
