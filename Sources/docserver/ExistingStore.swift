import ArgumentParser
import Foundation
import GraphCore

/// What the commands that work on an existing store (`check`, `compact`) need first: the
/// store file must exist and the model must load; otherwise a message on standard error and
/// exit status 2.
enum ExistingStore {
    /// The model to open `store` with. `verb` names the command in messages; `missing` says
    /// what the command does about a store that does not exist.
    static func model(store: String, model: String?, verb: String, missing: String) throws -> ObjectModel {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: store, isDirectory: &isDirectory), !isDirectory.boolValue else {
            FileHandle.standardError.write(Data("\(store): no such store file (\(missing))\n".utf8))
            throw ExitCode(2)
        }
        do {
            return try SampleModel.load(path: model)
        } catch {
            FileHandle.standardError.write(Data("cannot \(verb): the model cannot be used: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}
