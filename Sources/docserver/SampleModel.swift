import Foundation
import GraphCore

/// The model `docserver serve` uses without `--model`: artists, albums, songs and tags
/// (`Resources/sample.model.json`, embedded in the binary).
enum SampleModel {
    static func load() throws -> ObjectModel {
        try ObjectModel(json: Data(PackageResources.sample_model_json), path: "(sample model)")
    }

    /// The model from `path` (a JSON model file or an Xcode model), or the sample model. The
    /// notes of an Xcode model's import go to standard error.
    static func load(path: String?) throws -> ObjectModel {
        guard let path else { return try load() }
        let imported = try ObjectModel.importing(contentsOf: URL(fileURLWithPath: path))
        for note in imported.notes { FileHandle.standardError.write(Data("\(note)\n".utf8)) }
        return imported.model
    }
}
