import Foundation
@testable import GraphCore

/// Where the Xcode model test data lives: the project's own small models under
/// `Tests/GraphCoreTests/Fixtures/Xcode`, and the real models in `../shared/fixtures/xcdatamodel`.
enum XcodeFixtures {
    static let own = ModelTestFiles.testsDirectory.appendingPathComponent("Fixtures/Xcode")
    static let everything = own.appendingPathComponent("Everything.xcdatamodel")
    static let shop = own.appendingPathComponent("Shop.xcdatamodeld")
    static let bad = own.appendingPathComponent("Bad")

    /// `../shared/fixtures/xcdatamodel`, beside the repository's root.
    static let real = ModelTestFiles.testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/fixtures/xcdatamodel")

    /// Every `*.contents.xml` of the real models.
    static func realContents() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: real, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasSuffix(".contents.xml") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// Every `.xcdatamodeld` of the real models.
    static func realBundles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: real.appendingPathComponent("bundles"), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "xcdatamodeld" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The errors of importing `contents` text, or an empty list when it imports.
    static func importErrors(_ url: URL) -> [ModelImportNote] {
        do {
            _ = try ObjectModel.importing(contentsOf: url)
            return []
        } catch {
            if case .unusableXcodeModel(_, let errors) = error { return errors }
            return [ModelImportNote(.error, file: url.path, line: nil, subject: nil, message: "\(error)")]
        }
    }

    /// Imports `xml` as the bytes of a `contents` file.
    static func importing(_ xml: String) throws -> ModelImport {
        try XcodeModelReader.read(Data(xml.utf8), file: "test/contents")
    }
}
