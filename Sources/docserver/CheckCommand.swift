import ArgumentParser
import Foundation
import GraphCore
import JSONAtomicStore

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a store file against a model.",
        discussion: """
            Reads the whole file as the server would (read-only: it takes no lock, so it also works on the \
            store of a running server) and checks its syntax, shape, value types, required values, references \
            and inverse relationships. Exit status: 0 with a one-line summary when the store is valid; 1 with \
            the first error and where it is when it is not; 2 when it cannot be checked: the store file does \
            not exist (check creates nothing), or the model file is missing or invalid.
            """
    )

    @Option(help: ArgumentHelp("The model file (docs/MODEL.md); the built-in sample model when omitted.", valueName: "file"))
    var model: String?

    @Option(help: ArgumentHelp("The store file to check.", valueName: "file"))
    var store: String

    func run() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: store, isDirectory: &isDirectory), !isDirectory.boolValue else {
            FileHandle.standardError.write(Data("\(store): no such store file (check creates nothing; serve creates a missing store)\n".utf8))
            throw ExitCode(2)
        }
        let objectModel: ObjectModel
        do {
            objectModel = try SampleModel.load(path: model)
        } catch {
            FileHandle.standardError.write(Data("cannot check: the model cannot be used: \(error)\n".utf8))
            throw ExitCode(2)
        }
        do {
            JSONAtomicStore.register()
            let coordinator = StoreCoordinator(model: objectModel)
            var options = StoreOptions()
            options.isReadOnly = true
            let opened = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: URL(fileURLWithPath: store), options: options)
            defer { coordinator.remove(opened) }
            let nodes = (opened as? AtomicStore)?.cacheNodes() ?? []
            var counts: [String: Int] = [:]
            for node in nodes { counts[node.objectID.entityName, default: 0] += 1 }
            let perEntity = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print("\(store): ok, \(nodes.count) objects" + (perEntity.isEmpty ? "" : " (\(perEntity))")
                  + ", store \(opened.identifier), model \(objectModel.versionHash.prefix(12))")
        } catch {
            // Store errors name the file already.
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
