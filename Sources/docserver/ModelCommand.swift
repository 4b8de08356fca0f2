import ArgumentParser
import Foundation
import GraphCore

/// `docserver model`: work with model files.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Work with model files: convert an Xcode model to a JSON model file.",
        subcommands: [Convert.self]
    )

    /// `docserver model convert <path>`: prints the JSON model file of a model.
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "convert",
            abstract: "Print the JSON model file (docs/MODEL.md) of an Xcode model or a JSON model file.",
            discussion: """
                The path is an .xcdatamodeld bundle (its current version, as its .xccurrentversion names it, \
                unless --version names another), an .xcdatamodel folder, its 'contents' file, or a JSON model \
                file. The JSON goes to standard output; what the import could not carry as the file has it goes to \
                standard error, one note a line ('file:line: warning: Entity.property: ...'). Exit status: 0 when \
                converted (with or without warnings); 1 with --strict when there were warnings; 2 when the model \
                cannot be used (each error with its file and line).
                """
        )

        @Argument(help: ArgumentHelp("The model to convert.", valueName: "path"))
        var path: String

        @Option(help: ArgumentHelp("For an .xcdatamodeld bundle: the version to convert (its name without .xcdatamodel).",
                                   valueName: "name"))
        var version: String?

        @Flag(help: "Exit with status 1 when the import had warnings.")
        var strict = false

        func run() throws {
            let url = URL(fileURLWithPath: path)
            let imported: ModelImport
            do {
                if let version {
                    let bundle = try ModelBundle(contentsOf: url)
                    if let failed = bundle.unreadable.first(where: { $0.name == version }) {
                        FileHandle.standardError.write(Data("cannot convert: version '\(version)' of \(path) cannot be read: \(failed.reason)\n".utf8))
                        throw ExitCode(2)
                    }
                    guard let model = bundle.model(named: version) else {
                        let names = bundle.versions.map(\.name).joined(separator: ", ")
                        FileHandle.standardError.write(Data("\(path) has no version '\(version)' (it has: \(names))\n".utf8))
                        throw ExitCode(2)
                    }
                    imported = ModelImport(model: model, notes: bundle.notes)
                } else {
                    imported = try ObjectModel.importing(contentsOf: url)
                }
            } catch let error as ModelError {
                FileHandle.standardError.write(Data("cannot convert: \(error)\n".utf8))
                throw ExitCode(2)
            }
            for note in imported.notes { FileHandle.standardError.write(Data("\(note)\n".utf8)) }
            FileHandle.standardOutput.write(imported.model.jsonRepresentation() + Data("\n".utf8))
            if strict && !imported.notes.isEmpty { throw ExitCode(1) }
        }
    }
}
