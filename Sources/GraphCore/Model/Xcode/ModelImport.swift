import Foundation

/// A model read from an Xcode model file, with the notes on what could not be carried as the
/// file has it (warnings only: an import with errors throws instead).
public struct ModelImport: Sendable {
    /// The model.
    public let model: ObjectModel
    /// What the import carried differently or left out, each with its file and line.
    public let notes: [ModelImportNote]

    /// Pairs a model with its notes.
    public init(model: ObjectModel, notes: [ModelImportNote]) {
        self.model = model
        self.notes = notes
    }
}

extension ObjectModel {
    /// Reads a model and the notes of its import from `url`, by what the path is: an
    /// `.xcdatamodeld` bundle (its current version), an `.xcdatamodel` folder (its `contents`
    /// file), a `contents` XML file on its own, or a JSON model file (`docs/MODEL.md`, no notes).
    ///
    /// - Throws: ``ModelError/unusableXcodeModel(path:errors:)`` listing every error with its
    ///   line, ``ModelError/invalidFile(path:reason:)`` for a file that cannot be read or
    ///   parsed, or the ``ModelError`` of the model the file describes.
    public static func importing(contentsOf url: URL) throws(ModelError) -> ModelImport {
        switch url.pathExtension.lowercased() {
        case "xcdatamodeld":
            let bundle = try ModelBundle(contentsOf: url)
            return ModelImport(model: bundle.current, notes: bundle.notes)
        case "xcdatamodel":
            return try XcodeModelReader.read(contentsOf: url.appendingPathComponent("contents"), named: url.lastPathComponent + "/contents")
        default:
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                let contents = url.appendingPathComponent("contents")
                if FileManager.default.fileExists(atPath: contents.path) {
                    return try XcodeModelReader.read(contentsOf: contents, named: url.lastPathComponent + "/contents")
                }
                throw .invalidFile(path: url.path, reason: "is a folder, but neither an .xcdatamodeld bundle nor a model version with a 'contents' file")
            }
            let data = try readModelFile(url)
            if Self.looksLikeXML(data) {
                return try XcodeModelReader.read(data, file: url.path)
            }
            return ModelImport(model: try ObjectModel(json: data, path: url.path), notes: [])
        }
    }

    /// The bytes of a model file, or ``ModelError/invalidFile(path:reason:)``.
    static func readModelFile(_ url: URL) throws(ModelError) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw .invalidFile(path: url.path, reason: "cannot be read (\(error.localizedDescription))")
        }
    }

    /// Whether the first byte that is not white space (after a UTF-8 byte order mark) is `<`.
    static func looksLikeXML(_ data: Data) -> Bool {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let first = bytes.first { ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains($0) }
        return first == UInt8(ascii: "<")
    }
}
