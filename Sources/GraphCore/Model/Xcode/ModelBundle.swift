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
    /// `.xccurrentversion`; an unreadable version's errors come as warnings here.
    public let notes: [ModelImportNote]
    /// The versions that cannot be read (an Xcode 3 version, kept as `elements` and `layout`
    /// files; a version with errors), by name, with why: left out of ``versions``. A migration
    /// whose path crosses one is refused; elsewhere they are reported and skipped.
    public let unreadable: [(name: String, reason: String)]
    /// Every version's name, readable or not, in the bundle's order.
    public let allNames: [String]

    /// Reads every version of the bundle at `url`.
    ///
    /// A version that cannot be read is reported (``unreadable``, and a warning in ``notes``)
    /// and skipped, unless it is the current one. An `.xccurrentversion` that names no version
    /// (an empty dictionary, as some tools leave it) falls back to the last version by name, with
    /// a warning.
    ///
    /// - Throws: ``ModelError/invalidFile(path:reason:)`` when the folder cannot be listed, holds
    ///   no `.xcdatamodel`, or `.xccurrentversion` is not a property list or names a version the
    ///   bundle lacks; the current version's own error when it cannot be read.
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
        var unreadable: [(name: String, reason: String, error: ModelError)] = []
        var notes: [ModelImportNote] = []
        let bundleName = url.lastPathComponent
        let versionNames = versionFolders.map { String($0.dropLast(".xcdatamodel".count)) }
        for (folder, name) in zip(versionFolders, versionNames) {
            do throws(ModelError) {
                let imported = try Self.readVersion(url.appendingPathComponent(folder), named: "\(bundleName)/\(folder)")
                versions.append((name: name, model: imported.model))
                notes += imported.notes
            } catch {
                let reason = Self.reason(error)
                unreadable.append((name, reason, error))
                notes.append(ModelImportNote(.warning, file: "\(bundleName)/\(folder)", line: nil, subject: nil,
                                             message: "this version cannot be read (\(reason)); skipped: a store of it, or a "
                                                 + "migration across it, is refused"))
            }
        }
        let fallback = versionNames[versionNames.count - 1]
        var currentName = fallback
        let currentVersionFile = url.appendingPathComponent(".xccurrentversion")
        if FileManager.default.fileExists(atPath: currentVersionFile.path) {
            if let named = try Self.currentVersionName(in: currentVersionFile) {
                let name = named.hasSuffix(".xcdatamodel") ? String(named.dropLast(".xcdatamodel".count)) : named
                guard versionNames.contains(name) else {
                    throw .invalidFile(path: currentVersionFile.path,
                                       reason: "names the current version '\(named)', which the bundle does not hold (it holds "
                                           + versionFolders.joined(separator: ", ") + ")")
                }
                currentName = name
            } else {
                notes.append(ModelImportNote(.warning, file: "\(bundleName)/.xccurrentversion", line: nil, subject: nil,
                                             message: "names no current version (no _XCCurrentVersionName); the last version by name, "
                                                 + "'\(fallback)', is taken as the current one"))
            }
        } else if versionNames.count > 1 {
            notes.append(ModelImportNote(.warning, file: "\(bundleName)/.xccurrentversion", line: nil, subject: nil,
                                         message: "missing; the last version by name, '\(currentName)', is taken as the current one"))
        }
        if let failed = unreadable.first(where: { $0.name == currentName }) { throw failed.error }
        guard let current = versions.first(where: { $0.name == currentName })?.model else {
            throw .invalidFile(path: url.path, reason: "its current version '\(currentName)' cannot be read")
        }
        self.url = url
        self.versions = versions
        self.currentName = currentName
        self.current = current
        self.notes = notes
        self.unreadable = unreadable.map { ($0.name, $0.reason) }
        self.allNames = versionNames
    }

    /// Reads one `.xcdatamodel` folder; one in Xcode 3's format (`elements` and `layout`
    /// files, no `contents`) is refused by name.
    private static func readVersion(_ folder: URL, named name: String) throws(ModelError) -> ModelImport {
        let contents = folder.appendingPathComponent("contents")
        if !FileManager.default.fileExists(atPath: contents.path),
           FileManager.default.fileExists(atPath: folder.appendingPathComponent("elements").path) {
            throw .invalidFile(path: folder.path, reason: "is in Xcode 3's format (elements and layout files, no contents file), which "
                               + "the importer does not read: open the model in a current Xcode, which converts it")
        }
        return try XcodeModelReader.read(contentsOf: contents, named: "\(name)/contents")
    }

    /// A one-line reason for a version's error.
    private static func reason(_ error: ModelError) -> String {
        if case .unusableXcodeModel(_, let errors) = error {
            let first = errors.prefix(3).map(\.description).joined(separator: "; ")
            return errors.count > 3 ? "\(first); and \(errors.count - 3) more errors" : first
        }
        return "\(error)"
    }

    /// The model of the version with this name (without `.xcdatamodel`).
    public func model(named name: String) -> ObjectModel? {
        versions.first { $0.name == name }?.model
    }

    /// `_XCCurrentVersionName` of the property list at `url`; nil when the dictionary has none
    /// (an empty dictionary).
    private static func currentVersionName(in url: URL) throws(ModelError) -> String? {
        let data = try ObjectModel.readModelFile(url)
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw .invalidFile(path: url.path, reason: "is not a property list (\(error.localizedDescription))")
        }
        guard let dictionary = plist as? [String: Any] else {
            throw .invalidFile(path: url.path, reason: "is not a dictionary naming the current version (_XCCurrentVersionName)")
        }
        guard let value = dictionary["_XCCurrentVersionName"] else { return nil }
        guard let name = value as? String else {
            throw .invalidFile(path: url.path, reason: "has an _XCCurrentVersionName that is not a string")
        }
        return name.isEmpty ? nil : name
    }
}
