import Foundation
import GraphCore

/// The models and store files the fuzz targets work on, built once per process.
public enum FuzzModels {
    /// The sample model of `docserver` (artists, albums, songs, tags), the model of
    /// `docs/PROTOCOL.md`'s examples.
    public static func sample() -> ObjectModel {
        do {
            return try ObjectModel(json: Data(PackageResources.sample_model_json), path: "(sample model)")
        } catch {
            fuzzFailure("the embedded sample model does not load: \(error)")
        }
    }

    /// An empty store file of the sample model whose UUID is the one of
    /// `docs/PROTOCOL.md`'s examples, so the examples' ids name its objects.
    public static let emptySampleStore: [UInt8] = PackageResources.empty_store_json
}
