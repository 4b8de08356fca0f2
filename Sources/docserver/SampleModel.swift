import Foundation
import GraphCore

/// The model `docserver serve` uses without `--model`: artists, albums, songs and tags
/// (`Resources/sample.model.json`, embedded in the binary).
enum SampleModel {
    static func load() throws -> ObjectModel {
        try ObjectModel(json: Data(PackageResources.sample_model_json), path: "(sample model)")
    }

    /// The model from `path`, or the sample model.
    static func load(path: String?) throws -> ObjectModel {
        guard let path else { return try load() }
        return try ObjectModel(contentsOf: URL(fileURLWithPath: path))
    }
}
