import Foundation
import Testing
@testable import GraphCore

/// Bundles that hold a version the importer cannot read, or an `.xccurrentversion` that names
/// nothing, still give their readable versions and their current one.
@Suite("Xcode bundles: unreadable versions and an empty .xccurrentversion")
struct ModelBundleFallbackTests {
    static let xcode3 = XcodeFixtures.own.appendingPathComponent("Xcode3.xcdatamodeld")
    static let emptyCurrent = XcodeFixtures.own.appendingPathComponent("EmptyCurrent.xcdatamodeld")

    @Test("a version in Xcode 3's format (elements and layout) is reported and skipped; the others are read")
    func anXcode3VersionIsSkipped() throws {
        let bundle = try ModelBundle(contentsOf: Self.xcode3)
        #expect(bundle.versions.map(\.name) == ["Old 2", "Old 3"])
        #expect(bundle.allNames == ["Old", "Old 2", "Old 3"])
        #expect(bundle.currentName == "Old 3")
        #expect(bundle.unreadable.map(\.name) == ["Old"])
        #expect(bundle.unreadable.first?.reason.contains("Xcode 3's format") == true)
        #expect(bundle.notes.contains { $0.severity == .warning && $0.file.hasSuffix("Old.xcdatamodel") && $0.message.contains("skipped") })
        #expect(try ObjectModel(contentsOf: Self.xcode3).versionHash == bundle.current.versionHash)
    }

    @Test("a bundle whose current version cannot be read fails, naming why")
    func anUnreadableCurrentVersionFails() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID().uuidString).xcdatamodeld")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["Old", "Old 2"] {
            try FileManager.default.copyItem(at: Self.xcode3.appendingPathComponent("\(name).xcdatamodel"),
                                             to: folder.appendingPathComponent("\(name).xcdatamodel"))
        }
        let plist = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Old.xcdatamodel"], format: .xml, options: 0)
        try plist.write(to: folder.appendingPathComponent(".xccurrentversion"))
        #expect { try ModelBundle(contentsOf: folder) } throws: { "\($0)".contains("Xcode 3's format") }
    }

    @Test("an .xccurrentversion that is an empty dictionary falls back to the last version, with a warning")
    func anEmptyXccurrentversionFallsBack() throws {
        let bundle = try ModelBundle(contentsOf: Self.emptyCurrent)
        #expect(bundle.currentName == "Empty 2")
        #expect(bundle.notes.contains { $0.severity == .warning && $0.message.contains("names no current version") })
    }
}
