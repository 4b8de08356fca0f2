import Foundation
import Testing

/// `docs/ARCHITECTURE.md` names files and types of the code: it must name only ones that exist,
/// so that it cannot go stale unnoticed when code is renamed or removed.
@Suite struct ArchitectureDocumentTests {
    /// The package's root (this file is Tests/DocumentServerTests/ArchitectureDocumentTests.swift).
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Names the document may use that the package does not declare: the platform's and its
    /// dependencies' modules and types.
    private static let outside: Set<String> = [
        "Foundation", "TreeDictionary", "ServiceGroup", "NIOCore", "NIOPosix", "SwiftNIO", "PostgresNIO",
        "PostgresClient", "NIOAsyncChannel", "Logging", "Logger", "ArgumentParser", "Sendable",
    ]

    /// Every Swift file of Sources, by path relative to the root.
    private static func sourceFiles() throws -> [String] {
        try files(under: "Sources")
    }

    /// Every Swift file under `folder` (of the root), by path relative to the root.
    private static func files(under folder: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { folder + "/" + $0 }
    }

    /// The folders under Sources, at the root, and the test and benchmark targets' folders.
    private static func folderNames() -> Set<String> {
        var names = Set((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
        for folder in ["Tests", "Benchmarks/Sources"] {
            names.formUnion((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? [])
        }
        let sources = root.appendingPathComponent("Sources")
        for path in FileManager.default.enumerator(atPath: sources.path)?.compactMap({ $0 as? String }) ?? [] {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: sources.appendingPathComponent(path).path, isDirectory: &isFolder), isFolder.boolValue {
                names.insert(URL(fileURLWithPath: path).lastPathComponent)
            }
        }
        return names
    }

    /// The names of the types, protocols and modules the package declares (its tests' and
    /// benchmarks' included), and its folders.
    private static func declaredNames(in files: [String]) throws -> Set<String> {
        let declaration = try Regex(#"(?:class|struct|enum|protocol|actor|typealias|extension)\s+([A-Z][A-Za-z0-9_]*)"#)
        var names = Set<String>()
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: declaration) {
                if let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        return names.union(folderNames())
    }

    private static func document() throws -> String {
        try String(contentsOf: root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
    }

    @Test func everySwiftFileTheArchitectureDocumentNamesExists() throws {
        let files = try Self.sourceFiles()
        let named = try Self.document().matches(of: try Regex(#"[A-Za-z0-9_/+]+\.swift"#)).map { String($0.output[0].substring ?? "") }
        #expect(!named.isEmpty)
        let missing = named.filter { name in
            !files.contains { $0 == name || $0.hasSuffix("/" + name) || $0 == "Sources/" + name }
                && !FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(name).path)
        }
        #expect(missing.isEmpty, "docs/ARCHITECTURE.md names files that are not in Sources: \(missing)")
    }

    @Test func everyTypeTheArchitectureDocumentNamesInBackticksIsDeclared() throws {
        let declared = try Self.declaredNames(in: try Self.sourceFiles() + Self.files(under: "Tests")
                                              + Self.files(under: "Benchmarks/Sources"))
        // The leading name of each code span that starts with a capital: `StoreGraph.commit` names StoreGraph.
        let spans = try Self.document().matches(of: try Regex(#"`([A-Z][A-Za-z0-9_]*)[^`]*`"#))
        // File names (checked by the test above) are left out.
        let named = Set(spans.filter { !String($0.output[0].substring ?? "").contains(".swift") }
            .compactMap { $0.output[1].substring.map(String.init) })
        #expect(named.count > 20)
        let missing = named.filter { name in
            !declared.contains(name) && !Self.outside.contains(name) && !name.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" }
        }
        #expect(missing.isEmpty, "docs/ARCHITECTURE.md names types that Sources does not declare: \(missing.sorted())")
    }
}
