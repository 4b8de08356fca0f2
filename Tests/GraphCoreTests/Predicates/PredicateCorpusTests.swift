import Foundation
import Testing
@testable import GraphCore

/// The corpus of predicate format strings that Core Data apps write
/// (`Fixtures/core-data-predicates.tsv`): every one parses, and its description (the text sent
/// to the server by RemoteStore) parses back to an equal predicate.
@Suite struct PredicateCorpusTests {
    /// One line of the corpus.
    struct Entry {
        let line: Int
        let format: String
        let arguments: [PredicateValue]
    }

    /// An argument as the corpus writes it in JSON.
    enum JSONArgument: Decodable {
        case value(PredicateValue)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .value(.value(.null)); return }
            if let b = try? container.decode(Bool.self) { self = .value(.value(.bool(b))); return }
            if let i = try? container.decode(Int64.self) { self = .value(.value(.int(i))); return }
            if let d = try? container.decode(Double.self) { self = .value(.value(.double(d))); return }
            if let s = try? container.decode(String.self) { self = .value(.value(.string(s))); return }
            if let a = try? container.decode([JSONArgument].self) {
                self = .value(.array(a.map { if case .value(let v) = $0 { v } else { .value(.null) } }))
                return
            }
            let typed = try container.decode([String: String].self)
            guard let text = typed["date"], let date = ISO8601.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "an argument object is {\"date\": \"…\"}")
            }
            self = .value(.value(.date(date)))
        }
    }

    static func entries() throws -> [Entry] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/core-data-predicates.tsv")
        let text = try String(contentsOf: url, encoding: .utf8)
        var entries: [Entry] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let parts = line.split(separator: "\t", maxSplits: 1)
            var arguments: [PredicateValue] = []
            if parts.count == 2 {
                let decoded = try JSONDecoder().decode([JSONArgument].self, from: Data(parts[1].utf8))
                arguments = decoded.map { if case .value(let v) = $0 { v } else { .value(.null) } }
            }
            entries.append(Entry(line: index + 1, format: String(parts[0]), arguments: arguments))
        }
        return entries
    }

    @Test func theCorpusHoldsAtLeastThreeHundredPredicates() throws {
        #expect(try Self.entries().count >= 300)
    }

    @Test func everyPredicateOfTheCorpusParses() throws {
        var failures: [String] = []
        for entry in try Self.entries() {
            do {
                _ = try GraphCore.Predicate(format: entry.format, arguments: entry.arguments)
            } catch {
                failures.append("line \(entry.line): \(entry.format)\n    \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) predicates do not parse:\n\(failures.joined(separator: "\n"))")
    }

    @Test func everyPredicateOfTheCorpusPrintsAsTextThatParsesBackToIt() throws {
        var failures: [String] = []
        for entry in try Self.entries() {
            guard let predicate = try? GraphCore.Predicate(format: entry.format, arguments: entry.arguments) else { continue }
            let text = predicate.description
            do {
                let again = try GraphCore.Predicate(format: text, arguments: [])
                if again != predicate || again.description != text { failures.append("line \(entry.line): \(text) reads back as \(again)") }
            } catch {
                failures.append("line \(entry.line): \(text)\n    \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) descriptions do not parse back:\n\(failures.joined(separator: "\n"))")
    }
}
