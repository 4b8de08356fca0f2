import ArgumentParser
import Foundation
import GraphCore

/// `docserver codegen --lang typescript --model M`: typed declarations of a model's entities
/// for a client, printed or written to a file.
struct CodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codegen",
        abstract: "Print typed declarations of a model's entities for a client (TypeScript for clients/js, Python for clients/python, Swift for DocumentClient).",
        discussion: """
            --lang typescript writes one interface per entity for the JavaScript client (clients/js): its \
            attributes with their types and optionality, relationships as the entity interfaces (to-many as \
            arrays), sub-entities extending their parent; a ...Values type per entity for insert; and \
            Entities, a map from entity names to interfaces; it compiles with tsc --strict. --lang python writes \
            a typing.Protocol per entity for the Python client (clients/python), for typing.cast(Song, obj), \
            and ENTITIES; it passes mypy --strict. --lang swift writes a struct per entity for the Swift client \
            (DocumentClient): typed properties read from the snapshots it fetches, relationships as ObjectIDs, \
            a typed fetch and the values a save sends; it compiles against DocumentClient. Exit \
            status: 0 when written; 2 when the model cannot be used or the file cannot be written; 64 for \
            a command line it cannot read (an unknown --lang).
            """
    )

    /// The languages codegen writes.
    enum Language: String, ExpressibleByArgument, CaseIterable {
        case typescript, python, swift
    }

    @Option(help: ArgumentHelp("The language to write: \(Language.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "language"))
    var lang: Language

    @Option(help: ArgumentHelp("The model: a JSON model file (docs/MODEL.md) or an Xcode .xcdatamodeld / .xcdatamodel (its current version); the built-in sample model when omitted.", valueName: "path"))
    var model: String?

    @Option(help: ArgumentHelp("TypeScript: the module the declarations import the client's types from.", valueName: "specifier"))
    var importFrom: String = "docstore"

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    func run() throws {
        let objectModel: ObjectModel
        do {
            objectModel = try SampleModel.load(path: model)
        } catch {
            FileHandle.standardError.write(Data("cannot generate: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let text: String
        switch lang {
        case .typescript:
            text = TypeScriptCodegen(model: objectModel, importFrom: importFrom, source: model ?? "the sample model").generate()
        case .python:
            text = PythonCodegen(model: objectModel, source: model ?? "the sample model").generate()
        case .swift:
            text = SwiftCodegen(model: objectModel, source: model ?? "the sample model").generate()
        }
        guard let output else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            FileHandle.standardError.write(Data("cannot write \(output): \(error.localizedDescription)\n".utf8))
            throw ExitCode(2)
        }
    }
}
