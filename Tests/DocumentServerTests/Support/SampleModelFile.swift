import Foundation
import GraphCore

/// The sample model of `docserver` (its resource file), read once for the tests that make IDs
/// and snapshots of it without a server.
enum SampleModelFile {
    static let model = Result { () throws -> ObjectModel in
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../Sources/docserver/Resources/sample.model.json").standardized
        return try ObjectModel(contentsOf: url)
    }
}
