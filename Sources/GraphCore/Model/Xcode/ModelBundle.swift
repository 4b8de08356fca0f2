import Foundation

/// An Xcode model bundle (`.xcdatamodeld`): every version of a model, in order, and the
/// current one, named by the bundle's `.xccurrentversion` property list as Xcode does.
///
/// ```swift
/// let bundle = try ModelBundle(contentsOf: URL(fileURLWithPath: "App.xcdatamodeld"))
/// for version in bundle.versions { print(version.name, version.model.versionHash) }
/// let model = bundle.current
/// ```
public struct ModelBundle: Sendable {
    /// The bundle's folder.
    public let url: URL
    /// Every version (each `.xcdatamodel` folder, named without its extension), ordered by
    /// name with numbers compared by value (`Model`, `Model 2`, `Model 10`).
    public let versions: [(name: String, model: ObjectModel)]
    /// The name of the current version.
    public let currentName: String
    /// The current version's model.
    public let current: ObjectModel
    /// The notes of every version's import (each names its `contents` file), and of
    /// `.xccurrentversion`.
    public let notes: [ModelImportNote]

    /// Reads every version of the bundle at `url`.
    ///
    /// - Throws: ``ModelError/invalidFile(path:reason:)`` when the folder cannot be listed, holds
    ///   no `.xcdatamodel`, or `.xccurrentversion` is unreadable or names a version the bundle
    ///   lacks; ``ModelError/unusableXcodeModel(path:errors:)`` when a version has errors.
    public init(contentsOf url: URL) throws(ModelError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw .invalidFile(path: url.path, reason: "cannot be listed as an .xcdatamodeld bundle (\(error.localizedDescription))")
        }
        // Names are compared without the extension: "Shop" before "Shop 2" before "Shop 10".
        let versionFolders = names.filter { $0.hasSuffix(".xcdatamodel") }.sorted {
            $0.dropLast(".xcdatamodel".count).compare($1.dropLast(".xcdatamodel".count), options: [.numeric]) == .orderedAscending
        }
        guard !versionFolders.isEmpty else {
            throw .invalidFile(path: url.path, reason: "holds no .xcdatamodel version")
        }
        var versions: [(name: String, model: ObjectModel)] = []
        var notes: [ModelImportNote] = []
        let bundleName = url.lastPathComponent
        for folder in versionFolders {
            let imported = try XcodeModelReader.read(contentsOf: url.appendingPathComponent(folder).appendingPathComponent("contents"),
                                                     named: "\(bundleName)/\(folder)/contents")
            versions.append((name: String(folder.dropLast(".xcdatamodel".count)), model: imported.model))
            notes += imported.notes
        }
        var currentName = versions[versions.count - 1].name
        let currentVersionFile = url.appendingPathComponent(".xccurrentversion")
        if FileManager.default.fileExists(atPath: currentVersionFile.path) {
            let named = try Self.currentVersionName(in: currentVersionFile)
            let name = named.hasSuffix(".xcdatamodel") ? String(named.dropLast(".xcdatamodel".count)) : named
            guard versions.contains(where: { $0.name == name }) else {
                throw .invalidFile(path: currentVersionFile.path,
                                   reason: "names the current version '\(named)', which the bundle does not hold (it holds "
                                       + versionFolders.joined(separator: ", ") + ")")
            }
            currentName = name
        } else if versions.count > 1 {
            notes.append(ModelImportNote(.warning, file: "\(bundleName)/.xccurrentversion", line: nil, subject: nil,
                                         message: "missing; the last version by name, '\(currentName)', is taken as the current one"))
        }
        self.url = url
        self.versions = versions
        self.currentName = currentName
        self.current = versions.first { $0.name == currentName }?.model ?? versions[versions.count - 1].model
        self.notes = notes
    }

    /// The model of the version with this name (without `.xcdatamodel`).
    public func model(named name: String) -> ObjectModel? {
        versions.first { $0.name == name }?.model
    }

    /// `_XCCurrentVersionName` of the property list at `url`.
    private static func currentVersionName(in url: URL) throws(ModelError) -> String {
        let data = try ObjectModel.readModelFile(url)
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw .invalidFile(path: url.path, reason: "is not a property list (\(error.localizedDescription))")
        }
        guard let dictionary = plist as? [String: Any], let name = dictionary["_XCCurrentVersionName"] as? String, !name.isEmpty else {
            throw .invalidFile(path: url.path, reason: "has no _XCCurrentVersionName string naming the current version")
        }
        return name
    }
}
