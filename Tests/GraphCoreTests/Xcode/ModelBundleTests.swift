import Foundation
import Testing
@testable import GraphCore

/// `.xcdatamodeld` bundles: every version in order, the current one as `.xccurrentversion` names it.
@Suite struct ModelBundleTests {
    @Test func versionsAreOrderedByNameWithNumbersComparedByValue() throws {
        let bundle = try ModelBundle(contentsOf: XcodeFixtures.shop)
        #expect(bundle.versions.map(\.name) == ["Shop", "Shop 2", "Shop 10"])
        #expect(bundle.versions.map { $0.model.entity(named: "Product")?.properties.count } == [1, 2, 3])
    }

    @Test func theCurrentVersionIsTheOneXccurrentversionNames() throws {
        let bundle = try ModelBundle(contentsOf: XcodeFixtures.shop)
        #expect(bundle.currentName == "Shop 2")
        #expect(bundle.current.versionHash == bundle.model(named: "Shop 2")?.versionHash)
        let model = try ObjectModel(contentsOf: XcodeFixtures.shop)
        #expect(model.versionHash == bundle.current.versionHash)
    }

    @Test func aBundleWithoutXccurrentversionTakesTheLastVersionAndSaysSo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID().uuidString).xcdatamodeld")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["Shop", "Shop 10"] {
            try FileManager.default.copyItem(at: XcodeFixtures.shop.appendingPathComponent("\(name).xcdatamodel"),
                                             to: folder.appendingPathComponent("\(name).xcdatamodel"))
        }
        let bundle = try ModelBundle(contentsOf: folder)
        #expect(bundle.currentName == "Shop 10")
        #expect(bundle.notes.contains { $0.message.contains("the last version by name") })
    }

    @Test func anXccurrentversionNamingAMissingVersionIsAnError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID().uuidString).xcdatamodeld")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: XcodeFixtures.shop.appendingPathComponent("Shop.xcdatamodel"),
                                         to: folder.appendingPathComponent("Shop.xcdatamodel"))
        let plist = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Gone.xcdatamodel"],
                                                       format: .xml, options: 0)
        try plist.write(to: folder.appendingPathComponent(".xccurrentversion"))
        #expect { try ModelBundle(contentsOf: folder) } throws: { error in
            "\(error)".contains("names the current version 'Gone.xcdatamodel', which the bundle does not hold")
        }
    }

    @Test func aFolderWithoutVersionsIsAnError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString).xcdatamodeld")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect { try ModelBundle(contentsOf: folder) } throws: { "\($0)".contains("holds no .xcdatamodel version") }
    }
}
