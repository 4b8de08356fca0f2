import Foundation

/// Reading and writing the JSON model file described in `docs/MODEL.md`.
extension ObjectModel {
    /// Loads a model from a JSON model file, or from an Xcode model: an `.xcdatamodeld`
    /// bundle (its current version, as `.xccurrentversion` names it), an `.xcdatamodel`
    /// folder, or its `contents` file. An Xcode model's import notes (warnings) are dropped
    /// here: ``importing(contentsOf:)`` returns them.
    ///
    /// - Throws: ``ModelError/invalidFile(path:reason:)`` when the file cannot be read or is
    ///   not shaped as `docs/MODEL.md` says (the reason names the place, e.g.
    ///   `entities[2].attributes[0]`), ``ModelError/unusableXcodeModel(path:errors:)`` for an
    ///   Xcode model with errors, or the ``ModelError`` of the model it describes.
    public convenience init(contentsOf url: URL) throws(ModelError) {
        let imported: ModelImport
        switch url.pathExtension.lowercased() {
        case "xcdatamodeld", "xcdatamodel":
            imported = try Self.importing(contentsOf: url)
        default:
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                imported = try Self.importing(contentsOf: url)
                break
            }
            let data = try Self.readModelFile(url)
            if !Self.looksLikeXML(data) {
                try self.init(json: data, path: url.path)
                return
            }
            imported = try XcodeModelReader.read(data, file: url.path)
        }
        try self.init(copying: imported.model)
    }

    /// A model with the same entities, configurations, templates and user info as `other`.
    private convenience init(copying other: ObjectModel) throws(ModelError) {
        try self.init(entities: other.entities.map(\.unresolvedCopy), configurations: other.configurations,
                      fetchRequestTemplates: Array(other.fetchRequestTemplates.values), userInfo: other.userInfo)
    }

    /// Loads a model from the bytes of a JSON model file; `path` names it in errors.
    public convenience init(json data: Data, path: String = "(model)") throws(ModelError) {
        let file: ModelFile
        do {
            file = try JSONDecoder().decode(ModelFile.self, from: data)
        } catch let error as DecodingError {
            throw .invalidFile(path: path, reason: Self.describe(error))
        } catch {
            throw .invalidFile(path: path, reason: "\(error)")
        }
        try self.init(copying: file.model(path: path))
    }

    /// The model as a JSON model file (`docs/MODEL.md`), with sorted keys.
    public func jsonRepresentation() -> Data {
        let file = ModelFile(self)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(file)) ?? Data("{\"entities\":[]}".utf8)
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let parts = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
            let joined = parts.joined()
            return joined.isEmpty ? "the top level" : String(joined.drop { $0 == "." })
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context)): expected \(type == String.self ? "a string" : "\(type)")"
        case .valueNotFound(_, let context):
            return "\(path(context)): a value is missing"
        case .keyNotFound(let key, let context):
            return "\(path(context)): missing key '\(key.stringValue)'"
        case .dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
            return "\(path(context)): \(context.debugDescription)\(underlying)"
        @unknown default:
            return "\(error)"
        }
    }
}
