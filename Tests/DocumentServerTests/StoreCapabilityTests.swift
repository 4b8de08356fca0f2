import Foundation
import Testing

/// The server sees its store through GraphCore's capability protocols (`JournaledStore`,
/// `SharedDatabaseStore`): it neither imports nor names the PostgreSQL store, and does not
/// depend on its target, so that nothing built on the server links postgres-nio unless it asks.
struct StoreCapabilityTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theServerLibraryNamesNoPostgreSQLType() throws {
        let folder = Self.root.appendingPathComponent("Sources/DocumentServer")
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 20)
        var naming: [String] = []
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                if line.contains("PostgresStore") || line.contains("PostgresHistory") || line.contains("import PostgresNIO") {
                    naming.append("\(file): \(line)")
                }
            }
        }
        #expect(naming.isEmpty, "DocumentServer names the PostgreSQL store: \(naming)")
    }

    @Test func theServerTargetDoesNotDependOnThePostgreSQLStore() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let server = try #require(Self.target("DocumentServer", in: manifest))
        #expect(server.contains("\"JSONAtomicStore\""), "the declaration found is the target's")
        #expect(!server.contains("PostgresStore"))
        let docserver = try #require(Self.target("docserver", in: manifest))
        // docserver links it only with the PostgreSQL trait (the default build has no postgres-nio).
        #expect(docserver.contains(#".target(name: "PostgresStore", condition: .when(traits: ["PostgreSQL"]))"#), "\(docserver)")
    }

    /// The text of the target named `name` in a manifest: from its name to the next target's
    /// declaration (`.target(` at the end of a line; a dependency on a target, `.target(name: …)`,
    /// is part of the text).
    private static func target(_ name: String, in manifest: String) -> Substring? {
        var rest = manifest[...]
        while let found = rest.range(of: "name: \"\(name)\",") {
            let after = rest[found.upperBound...]
            if after.drop(while: \.isWhitespace).hasPrefix("dependencies:") {
                let ends = ["Target(", ".target(\n"].compactMap { after.range(of: $0)?.lowerBound }
                return after[..<(ends.min() ?? after.endIndex)]
            }
            rest = after
        }
        return nil
    }
}
