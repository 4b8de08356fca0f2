import Foundation
import Testing
@testable import JSONAtomicStore

/// The store's JSON reader against JSONTestSuite's `test_parsing`: every `y_` file accepted,
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
    static func parse(_ url: URL) throws -> JSONStoreError? {
        let data = try Data(contentsOf: url)
        do {
            try data.withUnsafeBytes { try JSONEventParser.parse($0, handler: JSONSyntaxChecker(), source: url.lastPathComponent) }
            return nil
        } catch let error as JSONStoreError {
            return error
        }
    }

    /// The same, fed one byte at a time (chunk boundaries must not matter).
    static func parseBytewise(_ url: URL) throws -> Bool {
        let data = try Data(contentsOf: url)
        let parser = JSONEventParser(handler: JSONSyntaxChecker(), source: url.lastPathComponent)
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

    @Test func implementationDefinedFilesAreListed() throws {
        var lines: [String] = []
        for url in try Self.files("i_") {
            let error = try Self.parse(url)
            let outcome: String
            if let error, case .invalidJSON(_, _, _, _, let reason) = error {
                outcome = "refused (\(reason))"
            } else {
                outcome = error.map { "refused (\($0))" } ?? "accepted"
            }
            lines.append("| `\(url.lastPathComponent)` | \(outcome) |")
            // Whatever the outcome, it is the same when fed byte by byte.
            #expect(try Self.parseBytewise(url) == (error == nil), "\(url.lastPathComponent)")
        }
        print("i_ results:\n" + lines.joined(separator: "\n"))
        #expect(lines.count > 30)
    }
}
