import Foundation
import ServerTestSupport
import Testing

/// The exchanges under "## Examples" in docs/PROTOCOL.md are real: replayed on a server started
/// on a copy of Fixtures/examples.store.json (an empty store of the sample model whose UUID is
/// 6b3a0c2e-5d1f-4e8a-9c7b-1f2e3d4c5b6a), every answer is compared byte for byte.
@Suite struct ProtocolExampleTests {
    /// One line the client sends, and the lines the server answers (none for a notification).
    struct Exchange {
        let request: String
        var answers: [String]
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `→` and `←` lines of the Examples section, in order.
    static func exchanges() throws -> [Exchange] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
        guard let start = text.range(of: "\n## Examples\n") else { throw HarnessError("PROTOCOL.md has no Examples section") }
        var section = text[start.upperBound...]
        if let next = section.range(of: "\n## ") { section = section[..<next.lowerBound] }
        var exchanges: [Exchange] = []
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("→ ") {
                exchanges.append(Exchange(request: String(line.dropFirst(2)), answers: []))
            } else if line.hasPrefix("← ") {
                guard !exchanges.isEmpty else { throw HarnessError("an answer before any request: \(line)") }
                exchanges[exchanges.count - 1].answers.append(String(line.dropFirst(2)))
            }
        }
        return exchanges
    }

    @Test func everyExampleInProtocolMDIsWhatTheServerAnswers() throws {
        let exchanges = try Self.exchanges()
        #expect(exchanges.count >= 12, "the Examples section holds \(exchanges.count) exchanges")

        let directory = try TemporaryDirectory()
        let store = directory.file("store.json")
        try FileManager.default.copyItem(at: Self.root.appendingPathComponent("Tests/DocumentServerTests/Fixtures/examples.store.json"), to: store)
        let server = try ServerProcess(store: store, keeping: directory)
        let client = try server.connect()
        for exchange in exchanges {
            try client.sendLine(exchange.request)
            for expected in exchange.answers {
                let answer = Self.withoutTimestamps(try client.readLine())
                #expect(answer == Self.withoutTimestamps(expected), "→ \(exchange.request)")
                if answer != expected { break }
            }
        }
        #expect(try client.staysSilent(for: 0.3), "nothing more is answered")
        #expect(try server.stop() == 0)
    }

    /// A line with every commit `"timestamp"` blanked: the examples' times are when they ran.
    static func withoutTimestamps(_ line: String) -> String {
        line.replacingOccurrences(of: #""timestamp":"[^"]*""#, with: #""timestamp":"…""#, options: .regularExpression)
    }

    @Test func theExamplesFixtureIsAnEmptyStoreWithTheDocumentedUUID() throws {
        let fixture = try StoreFileContents(Self.root.appendingPathComponent("Tests/DocumentServerTests/Fixtures/examples.store.json"))
        #expect(fixture.storeUUID?.uppercased() == "6B3A0C2E-5D1F-4E8A-9C7B-1F2E3D4C5B6A")
        #expect(fixture.json["objects"].count == 0)
    }
}
