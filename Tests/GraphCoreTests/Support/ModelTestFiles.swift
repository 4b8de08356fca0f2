import Foundation

/// Files the tests read, found relative to this source file.
enum ModelTestFiles {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    static let musicModel = testsDirectory.appendingPathComponent("Fixtures/music.model.json")
    static let modelDocument = testsDirectory
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/MODEL.md")
}
